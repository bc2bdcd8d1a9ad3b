import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol
import Logging

/// N1: a mute for 1 hour, 8 hours or until a time ends by itself. When it does, the server ends it in the store and
/// tells every device of the user with the same `settings` event (`muted: false`, a seq) an unmute sends, so no device
/// shows the conversation muted after its mute ended. A timer of the sync thread, like the other deadlines there.
extension SyncCore {
    /// A timed mute was set here: its end is a deadline.
    func muteEnds(at until: Int64) {
        guard until != MuteRules.forever else { return }
        nextMuteEnd = min(nextMuteEnd ?? .max, until)
    }

    /// Ends the mutes due by `now` in one transaction and returns their events. Also runs once at start (mutes that
    /// ended while the server was down) and after each maintenance (mutes set on other nodes); with several nodes,
    /// the node whose write ends a mute announces it, once.
    func endDueMutes(now: Int64) -> [SyncDelivery<Device>] {
        guard let due = nextMuteEnd, due <= now else { return [] }
        if due == .min {
            // Not read yet: a read first, so a node with no mute due writes nothing (no write lock, no write clock).
            do { nextMuteEnd = try store.nextMuteEnd() } catch {
                logger.debug("next mute end not read", metadata: ["error": "\(error)"])
                nextMuteEnd = now + 60_000
                return []
            }
            guard let next = nextMuteEnd, next <= now else { return [] }
        }
        var step = SyncStep<Device>()
        do {
            try store.transaction {
                for (user, conversation) in try store.endMutes(endedBy: now) {
                    // R5: a group the user left says nothing to them any more.
                    guard try store.isParticipant(user: user, conversation: conversation) else { continue }
                    var event = EventFrame(event: .settings)
                    event.conversationId = conversation
                    event.muted = false
                    try appendEvent(event.encodeBody(), to: [user], now: now, step: &step)
                }
            }
            nextMuteEnd = try store.nextMuteEnd()
        } catch {
            // Tried again in a minute; the mutes stay until then (a push decision judges them by the clock anyway).
            logger.debug("ended mutes not stored", metadata: ["error": "\(error)"])
            nextMuteEnd = now + 60_000
            return []
        }
        return apply(step, now: now)
    }
}
