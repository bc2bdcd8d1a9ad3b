import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol
import Logging

/// E2: presence. A user is online while a connected device of theirs is in the foreground, away while all are in the
/// background, else offline with the time they were last seen. Only users who share a conversation with them hear of
/// it (R5), at most once every 2 s per user; a device that syncs is told the presence of the people it shares
/// conversations with. Ephemeral: never stored, no seq; only the time a user was last seen is kept
/// (SyncCore+LastSeen.swift).
extension SyncCore {
    /// A device of `user` here connected, disconnected, went to the background or came back.
    func presenceChanged(_ user: String) {
        ephemeral.changedUsers.insert(user)
        ephemeral.changedHere.insert(user)
    }

    /// A device's `sync` was answered (its final page): it is live, so its user may be online now, and it learns its
    /// contacts' presence right after the answer.
    func deviceSynced(_ device: Device, state: DeviceState, now: Int64) {
        presenceChanged(state.user)
        ephemeral.syncedDevices.append((device, state.user))
    }

    /// Runs after every batch and when a timer is due: typing that fell silent, presence changes, then everything
    /// typing and presence queued, in order.
    func ephemeralDeliveries(now: Int64) -> [SyncDelivery<Device>] {
        expireTyping(now: now)
        var due: [(user: String, state: PresenceState)] = []
        if !ephemeral.changedUsers.isEmpty {
            let users = Array(ephemeral.changedUsers)
            ephemeral.changedUsers.removeAll(keepingCapacity: true)
            let states = currentPresence(of: users)
            for user in users {
                guard let state = states[user], let announced = ephemeral.coalescer.note(user, state, now: Instant(milliseconds: now)) else { continue }
                due.append((user, announced))
            }
        }
        due += ephemeral.coalescer.tick(now: Instant(milliseconds: now))
        announcePresence(due)
        if !ephemeral.introductions.isEmpty || !ephemeral.syncedDevices.isEmpty {
            // Who learns whose presence: devices here of new conversations' participants, then devices that just synced.
            var lessons: [(device: Device, contacts: [String])] = []
            for participants in ephemeral.introductions { lessons += introductionsHere(participants) }
            let synced = ephemeral.syncedDevices.filter { devices[$0.device] != nil }
            let contactsOfSynced = contacts(ofEach: synced.map(\.user))
            for (device, user) in synced { lessons.append((device, contactsOfSynced[user] ?? [])) }
            ephemeral.introductions.removeAll()
            ephemeral.syncedDevices.removeAll()
            // One read of everyone's presence for the whole batch: with several nodes each read is a query, and a
            // batch that opened 2,500 DMs made 5,000 of them, one per participant.
            let states = currentPresence(of: Array(Set(lessons.flatMap(\.contacts))))
            for lesson in lessons { tellPresence(of: lesson.contacts, to: lesson.device, states: states) }
        }
        publishEphemeralSignals()
        guard !ephemeral.outbox.isEmpty else { return [] }
        defer { ephemeral.outbox.removeAll() }
        return ephemeral.outbox
    }

    /// Sends the other nodes what typing and presence this batch produced, in one statement.
    private func publishEphemeralSignals() {
        guard !ephemeral.signals.isEmpty else { return }
        defer { ephemeral.signals.removeAll(keepingCapacity: true) }
        guard let shared = store as? any EphemeralSignalStore else { return }
        do {
            try shared.publish(ephemeral.signals)
        } catch {
            logger.debug("typing and presence not sent to the other nodes", metadata: ["count": "\(ephemeral.signals.count)", "error": "\(error)"])
        }
    }

    /// Another node's typing or presence change, for this node's devices.
    func receive(_ signal: EphemeralSignal, now: Int64) {
        switch signal {
        case .typing(_, let conversation, let user, let typing):
            do {
                // R5: the participants as this node reads them; a user who is not one is not announced.
                guard let record = try store.conversation(id: conversation), record.participants.contains(user) else { return }
                deliverTyping(conversation: conversation, user: user, typing: typing, to: record.participants)
            } catch {
                logger.debug("typing of another node not delivered", metadata: ["error": "\(error)"])
            }
        case .introduced(_, let conversation):
            do {
                if let record = try store.conversation(id: conversation), record.participants.count <= configuration.listedParticipants {
                    ephemeral.introductions.append(record.participants)
                }
            } catch {
                logger.debug("new conversation of another node not introduced", metadata: ["error": "\(error)"])
            }
        case .presence(_, let user, let lastSeen):
            if let lastSeen { ephemeral.lastSeen[user] = max(ephemeral.lastSeen[user] ?? .min, lastSeen) }
            // Worked out with the batch's other changes (``ephemeralDeliveries(now:)``): one read of their presence and
            // one of their contacts for all of them. One by one it was three round trips per signal, and after 100,000
            // devices left 6 nodes together, a node took half a minute to work off the other nodes' departures.
            ephemeral.changedUsers.insert(user)
        }
    }

    /// The users' presence from their live devices here and, with several nodes, the other nodes' presence rows.
    func currentPresence(of users: [String]) -> [String: PresenceState] {
        var flags: [String: [Bool]] = [:]
        for user in users {
            flags[user] = (devicesByUser[user] ?? []).filter { $0.state.cursor != nil }.map(\.state.scene.foreground)
        }
        if let cluster, !users.isEmpty {
            do {
                let rows = try cluster.store.presence(
                    users: Array(Set(users)), aliveMilliseconds: configuration.clusterPresenceTimeoutMilliseconds, excluding: cluster.node)
                for row in rows { flags[row.user, default: []].append(row.foreground) }
            } catch {
                logger.debug("presence of other nodes not read", metadata: ["error": "\(error)"])
            }
        }
        loadLastSeen(of: flags.filter { $0.value.isEmpty }.map(\.key))  // E2: offline since before a restart
        var states: [String: PresenceState] = [:]
        for (user, foreground) in flags {
            states[user] = PresenceState(status: .of(foregroundDevices: foreground), lastSeen: ephemeral.lastSeen[user])
        }
        return states
    }

    /// Tells the live devices here of everyone who shares a conversation with each user (R5) their new state and, for
    /// changes that began here, the other nodes. The contacts of all of them are read at once, and not at all while no
    /// device is connected here (nobody to tell).
    private func announcePresence(_ due: [(user: String, state: PresenceState)]) {
        guard !due.isEmpty else { return }
        let contacts = devicesByUser.isEmpty ? [:] : contacts(ofEach: due.map(\.user))
        for (user, state) in due {
            let targets = liveDevices(of: contacts[user] ?? [])
            if !targets.isEmpty { ephemeral.outbox.append(SyncDelivery(payload: Self.presenceEvent(user, state), devices: targets)) }
            guard ephemeral.changedHere.remove(user) != nil else {
                // Another node's user whom nobody here heard of: what was told of them is kept for no one (with 100,000
                // devices on 6 nodes, every node kept all 100,000 users, a sixth of its memory per device). A contact
                // who comes later learns their state when it syncs, and hears their next change at once.
                if targets.isEmpty { ephemeral.coalescer.forget(user) }
                continue
            }
            guard let cluster, store is any EphemeralSignalStore else { continue }
            ephemeral.signals.append(.presence(node: cluster.node, user: user, lastSeen: state.lastSeen))
        }
    }

    /// A new conversation's participants may have shared none before: their devices here (and on the other nodes) learn
    /// each other's presence. Only for conversations of up to ``SyncConfiguration/listedParticipants``: a big group's
    /// members learn it as it changes.
    func introduce(_ conversation: ConversationRecord) {
        guard conversation.participants.count <= configuration.listedParticipants else { return }
        ephemeral.introductions.append(conversation.participants)
        guard let cluster, store is any EphemeralSignalStore else { return }
        ephemeral.signals.append(.introduced(node: cluster.node, conversation: conversation.id))
    }

    /// The participants' live devices here, each with the others: whose presence it is to learn.
    private func introductionsHere(_ participants: [String]) -> [(device: Device, contacts: [String])] {
        var lessons: [(device: Device, contacts: [String])] = []
        for participant in participants {
            let others = participants.filter { $0 != participant }
            for device in liveDevices(of: [participant]) { lessons.append((device, others)) }
        }
        return lessons
    }

    /// A device learns the presence of its contacts (`states`, read for them): everyone online or away, and those offline
    /// whose last-seen time is known (an offline contact without one is simply offline).
    private func tellPresence(of contacts: [String], to device: Device, states: [String: PresenceState]) {
        for contact in contacts {
            guard let state = states[contact], state.status != .offline || state.lastSeen != nil else { continue }
            ephemeral.outbox.append(SyncDelivery(payload: Self.presenceEvent(contact, state), devices: [device]))
        }
    }

    /// The people each of `users` shares a conversation with, each once (R5: only they see the user's presence). Only 1:1
    /// conversations and groups of up to ``SyncConfiguration/listedParticipants`` count: in a group of thousands every
    /// device coming and going would be news for thousands of others, for an indicator nobody looks at there.
    func contacts(ofEach users: [String]) -> [String: [String]] {
        guard !users.isEmpty else { return [:] }
        do {
            return try store.contacts(ofEach: users, inConversationsOfAtMost: configuration.listedParticipants)
        } catch {
            logger.debug("contacts not read", metadata: ["count": "\(users.count)", "error": "\(error)"])
            return [:]
        }
    }

    static func presenceEvent(_ user: String, _ state: PresenceState) -> [UInt8] {
        var event = EventFrame(event: .presence)
        event.user = user
        event.status = state.status
        event.lastSeen = state.lastSeen
        return event.encodeBody()
    }
}
