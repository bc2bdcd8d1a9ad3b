import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol
import Logging

extension SyncCore {
    /// How far before a dead node's last heartbeat its messages are looked at: their grace (P4) may have ended while
    /// it lived, but its decision loop runs apart from its heartbeat, so a little more than the grace is taken over.
    static var takeoverMarginMilliseconds: Int64 { 5_000 }

    /// P4 across nodes: the pushes a node held in their grace period live in its memory alone, so when it dies without
    /// leaving, the one live node that claims it schedules them again, due at once. Recipients some node already
    /// recorded a push for are skipped (no push twice); the rest are decided by the usual rules (read meanwhile, a
    /// device in the foreground elsewhere) when they fire.
    func takeOverPushesOfDeadNodes(_ cluster: ClusterPresence<Device>, now: Int64) {
        do {
            let dead = try cluster.store.takeOverDeadNodes(node: cluster.node, silentMilliseconds: configuration.clusterPresenceTimeoutMilliseconds)
            for node in dead {
                let since = node.lastHeartbeat - max(configuration.pushGraceMilliseconds, 0) - Self.takeoverMarginMilliseconds
                let messages = try cluster.store.messagesCommitted(by: node.node, since: since)
                for committed in messages { try schedulePushAgain(committed, now: now) }
                logger.info("took over the pushes of a node that died", metadata: ["node": "\(node.node)", "messages": "\(messages.count)"])
            }
        } catch {
            logger.debug("pushes of a dead node not taken over", metadata: ["error": "\(error)"])
        }
    }

    private func schedulePushAgain(_ committed: CommittedMessage, now: Int64) throws {
        guard let record = try store.message(id: committed.message), record.unsentAt == nil,
              let conversation = try store.conversation(id: record.conversation) else { return }
        let users = conversation.participants.filter { $0 != record.sender && !committed.pushedUsers.contains($0) }
        guard !users.isEmpty else { return }
        let push = PushPreview.info(for: record, senderName: try name(of: record.sender), in: conversation)
        pendingPushes.insert(PendingPush(deadline: now, users: users, push: push, mentions: Self.mentions(of: record, in: conversation)))
    }
}
