import HeraldBytes
import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol

extension SyncCore {
    /// Runs one decoded request inside the caller's transaction (or snapshot) and returns its response.
    /// Throws ``ErrorInfo`` for refusals and `StoreError` for store failures; the caller rolls back.
    func execute(_ frame: RequestFrame, device: Device, state: DeviceState, now: Int64, step: inout SyncStep<Device>) throws -> ResponseFrame {
        let user = state.user
        var response = ResponseFrame(id: frame.id)
        switch frame.request {
        case .sync(let after):
            try sync(after: after, device: device, user: user, now: now, into: &response, step: &step)

        case .conversations:
            // U7: the seq first. Counts read after it are at least that fresh; read before it (PostgreSQL, READ
            // COMMITTED) another node's read could commit in between and its event look older than these counts.
            response.latest = try store.latestSeq(user: user)
            let summaries = try store.conversations(for: user)
            try fillConversationList(summaries, user: user, now: now, into: &response)

        case .dm(let other):
            guard try store.user(id: other) != nil else { throw ErrorInfo(.unknownUser, "no user '\(other.prefix(64))'") }
            let (conversation, created) = try store.findOrCreateDirect(between: user, and: other, now: now)
            if created { try announce(conversation, now: now, step: &step) }
            // One created by this request has no message yet: nothing to read back (on PostgreSQL, two round trips).
            response.conversation = try created ? conversationInfo(conversation, unread: 0, lastMessage: nil) : conversationInfo(conversation, for: user)

        case .group(let title, let members):
            for member in members where try store.user(id: member) == nil {
                throw ErrorInfo(.unknownUser, "no user '\(member.prefix(64))'")
            }
            let conversation = try store.createGroup(title: title, creator: user, members: members, now: now)
            try announce(conversation, now: now, step: &step)
            response.conversation = try conversationInfo(conversation, unread: 0, lastMessage: nil)

        case .history(let conversation, let before, let limit):
            try requireParticipant(user, conversation)
            if let before {
                guard let cursor = try store.message(id: before), cursor.conversation == conversation else {
                    throw ErrorInfo(.notFound, "no such message")
                }
            }
            let page = try store.history(conversation: conversation, before: before, limit: limit + 1)
            // N2: a message reads as its live event did, `mentions` included (a group's participants, read once).
            let group = try page.isEmpty ? nil : store.conversation(id: conversation)
            var messages: [MessageInfo] = []
            var bytes = 0
            for record in page.prefix(limit) {
                let size = record.approximateWireBytes
                if !messages.isEmpty && bytes + size > configuration.historyAnswerBytes { break }
                var info = try record.info(senderName: name(of: record.sender))
                if let group, record.unsentAt == nil, record.kind != .system { info = MessageEvent.withMentions(info, of: record, in: group) }
                messages.append(info)
                bytes += size
            }
            response.messages = try withReactions(messages, in: conversation)
            response.hasMore = page.count > messages.count

        case .search(let conversation, let text, let before, let limit):
            try search(conversation, text: text, before: before, limit: limit, user: user, into: &response)

        case .send(let conversation, let clientMessageId, let kind, let text, let imageURL):
            try send(
                conversation: conversation, clientMessageId: clientMessageId, kind: kind, text: text, imageURL: imageURL,
                user: user, now: now, into: &response, step: &step)

        case .ack(let ids):
            try ack(ids, user: user, now: now, into: &response, step: &step)

        case .scene(let report):
            // Not stored: a scene is only true while the connection lasts.
            if let state = devices[device] { setScene(report, of: state) }

        case .bell:
            try fillBell(of: user, into: &response)

        case .bellRead(let id):
            let changed = try store.markNotificationRead(user: user, id: id)
            if changed { try withdrawBellPushes(user: user, notifications: [id], now: now, step: &step) }
            guard var record = try store.notifications(user: user, limit: store.notificationsKept).first(where: { $0.id == id }) else {
                throw ErrorInfo(.notFound, "no such notification")
            }
            record.read = true
            let bellUnread = try store.unreadNotificationCount(user: user)
            if changed {
                var event = EventFrame(event: .bell)
                event.action = .read
                event.notificationIds = [id]
                event.bellUnread = bellUnread
                try appendEvent(event.encodeBody(), to: [user], now: now, step: &step)
            }
            response.notification = record.info
            response.bellUnread = bellUnread

        case .bellReadAll:
            let unreadIds = try store.notifications(user: user, limit: store.notificationsKept).filter { !$0.read }.map(\.id)
            if try store.markAllNotificationsRead(user: user) > 0 {
                try withdrawBellPushes(user: user, notifications: unreadIds, now: now, step: &step)
                var event = EventFrame(event: .bell)
                event.action = .readAll
                event.notificationIds = unreadIds
                event.bellUnread = 0
                try appendEvent(event.encodeBody(), to: [user], now: now, step: &step)
            }
            response.bellUnread = try store.unreadNotificationCount(user: user)

        case .follow(let other):
            guard other != user else { throw ErrorInfo(.badRequest, "you cannot follow yourself") }
            guard try store.user(id: other) != nil else { throw ErrorInfo(.unknownUser, "no user '\(other.prefix(64))'") }
            response.notification = try notify(
                other, kind: .follow, actor: user, text: "\(try name(of: user)) followed you", url: nil, now: now, step: &step)

        case .members(let conversation, let after, let limit):
            try requireParticipant(user, conversation)
            let everyone = try store.conversation(id: conversation)?.participants ?? []
            // Ids compare by their bytes, as the store sorts them (they are ASCII: the same order as String's).
            let rest = after.map { cursor in everyone.drop { !cursor.utf8.lexicographicallyPrecedes($0.utf8) } } ?? everyone[...]
            response.participants = try rest.prefix(limit).map { ParticipantInfo(id: $0, name: try name(of: $0)) }
            response.hasMore = rest.count > limit

        case .users(let after, let prefix, let limit):
            // One row more than the page tells whether another page follows, without a count.
            let page = try store.users(excluding: user, after: after, prefix: prefix, limit: limit + 1)
            response.users = page.prefix(limit).map { ParticipantInfo(id: $0.id, name: $0.name) }
            response.hasMore = page.count > limit

        case .leave(let conversation):
            try leave(user, conversation: conversation, now: now, step: &step)

        case .renameGroup(let conversation, let title):
            response.conversation = try renameGroup(conversation, title: title, user: user, now: now, step: &step)

        case .addMember(let conversation, let member):
            response.conversation = try addMember(member, to: conversation, user: user, now: now, step: &step)

        case .removeMember(let conversation, let member):
            try removeMember(member, from: conversation, user: user, now: now, step: &step)

        case .signOut(let device):
            try signOut(user, device: device, now: now, step: &step)

        case .pushRegister(let registration):
            guard state.isNamed else {
                throw ErrorInfo(.badState, "this connection has no device name: connect with ?device=<name> (or a token for a device) to register a push target")
            }
            let target = try registerPushTarget(user: user, device: state.name, registration: registration, now: now)
            response.device = target.device

        case .pushUnregister:
            try removePushTargets(user: user, device: state.name)
            response.device = state.name

        case .pushResolve(let reference):
            response.message = try resolvePush(reference, user: user)

        case .editMessage(let message, let text):
            response.message = try editMessage(message, text: text, user: user, now: now, step: &step)

        case .unsendMessage(let message):
            try unsendMessage(message, user: user, now: now, into: &response, step: &step)

        case .typingStart(let conversation):
            try reportTyping(true, in: conversation, device: device, state: state, now: now)

        case .typingStop(let conversation):
            try reportTyping(false, in: conversation, device: device, state: state, now: now)

        case .react(let messageId, let emoji):
            // R5: a message in someone else's conversation looks exactly like one that does not exist.
            guard let message = try store.message(id: messageId), try store.isParticipant(user: user, conversation: message.conversation) else {
                throw ErrorInfo(.notFound, "no such message")
            }
            if message.sender != user {
                response.notification = try notify(
                    message.sender, kind: .reaction, actor: user, text: "\(try name(of: user)) reacted \(emoji) to your message",
                    url: DeepLink.message(conversation: message.conversation, message: message.id).url, now: now, step: &step)
            }
            // A repeat of the same emoji by the same person is the reaction already there: nothing to announce.
            if try store.addReaction(message: message.id, conversation: message.conversation, user: user, emoji: emoji, now: now) {
                try announceReaction(emoji, to: message, by: user, now: now, step: &step)
            }

        case .mute(let conversation, let until, let minutes):
            try mute(conversation, until: until ?? minutes.map { now + Int64($0) * 60_000 }, user: user, now: now, into: &response, step: &step)

        case .unmute(let conversation):
            try unmute(conversation, user: user, now: now, into: &response, step: &step)

        case .quiet(let on):
            try setQuietHours(on, user: user, now: now, into: &response, step: &step)

        case .markUnread(let conversation):
            try markUnread(conversation, user: user, now: now, into: &response, step: &step)
        }
        return response
    }

    // MARK: - sync (R1a, R3)

    private func sync(after: Int64?, device: Device, user: String, now: Int64, into response: inout ResponseFrame, step: inout SyncStep<Device>) throws {
        let latest = try store.latestSeq(user: user)
        response.latest = latest
        // `&-`: an oldest seq of Int64.min (read from the database) wraps to .max, which no cursor reaches: resync.
        if let after, after >= (try store.oldestRetainedSeq(user: user)) &- 1, after <= latest {
            response.mode = .resume
            counters.resumes += 1
            let cursor = try replayPage(user: user, after: after, through: latest, device: device, step: &step)
            // (A page that made no progress, which a consistent store never returns, falls through to live as before.)
            if cursor < latest, cursor > after {
                // Flow control: the device asks for the next page once this one reached it; until the final page
                // it is not live, so nothing else is queued for it meanwhile.
                response.latest = cursor
                response.more = true
                return
            }
            // The final page is replayed in the same step that makes the device live: the live stream starts
            // right after `latest`, which is exactly where the replay ends (R1a).
        } else {
            response.mode = after == nil ? .snapshot : .resync
            let summaries = try store.conversations(for: user)
            try fillConversationList(summaries, user: user, now: now, into: &response)
            try fillBell(of: user, into: &response)
        }
        step.effects.append(.live(device, cursor: latest))
        step.syncing.insert(device)
    }

    /// The user's bell as a device shows it (B1-B4): their newest notifications and the unread count of all of them.
    private func fillBell(of user: String, into response: inout ResponseFrame) throws {
        let bell = try store.bell(user: user, limit: store.notificationsKept)
        response.notifications = bell.notifications.map(\.info)
        response.bellUnread = bell.unread
    }

    /// Replays the events after `after` up to `latest` for one resume page: at most
    /// ``SyncConfiguration/resumePageEvents`` events and about ``SyncConfiguration/resumePageBytes`` bytes (always at
    /// least one event). Returns the last replayed seq (`after` when there was nothing to replay).
    private func replayPage(user: String, after: Int64, through latest: Int64, device: Device, step: inout SyncStep<Device>) throws -> Int64 {
        let maxEvents = max(configuration.resumePageEvents, 1)
        let maxBytes = max(configuration.resumePageBytes, 1)
        var cursor = after
        var events = 0
        var bytes = 0
        while cursor < latest, events < maxEvents {
            let page = try store.events(user: user, after: cursor, limit: min(max(configuration.replayPageSize, 1), maxEvents - events))
            guard !page.isEmpty else { break }
            for event in page where event.seq <= latest {
                if events > 0 && bytes + event.payload.count > maxBytes { return cursor }
                step.effects.append(.reply(device, EventFrame.withSequence(event.payload, seq: event.seq)))
                counters.replayedEvents += 1
                events += 1
                bytes += event.payload.count
                cursor = event.seq
            }
        }
        return cursor
    }

    // MARK: - send (R1, R2, R4, P1-P4)

    func send(
        conversation: String, clientMessageId: String, kind: MessageKind, text: String?, imageURL: String?, user: String,
        now: Int64, into response: inout ResponseFrame, step: inout SyncStep<Device>
    ) throws {
        try requireParticipant(user, conversation)
        let (record, duplicate) = try store.insertMessage(
            conversation: conversation, sender: user, clientMessageId: clientMessageId, kind: kind.record, text: text,
            imageURL: imageURL, now: now)
        // R4's key is (sender, clientMessageId). A key reused in another conversation is not a retry: answering with
        // the other conversation's message would drop this one silently, so it is refused and nothing is lost.
        if duplicate, record.conversation != conversation {
            throw ErrorInfo(.conflict, "clientMessageId '\(clientMessageId)' was already used in another conversation; send with a new one")
        }
        // Charged after the insert so a retry (R4) costs nothing; a refusal rolls the insert back with this request.
        if !duplicate { try chargeStorage(user, StorageQuota.cost(text: text, imageURL: imageURL), now: now) }
        var info = record.info(senderName: try name(of: user))
        response.message = info
        response.duplicate = duplicate
        if !duplicate { counters.messagesStored += 1 }
        // R4: a retry stores nothing and announces nothing.
        guard !duplicate, let stored = try store.conversationForDelivery(id: record.conversation) else { return }
        info = MessageEvent.withMentions(info, of: record, in: stored)  // N2
        if info.mentions != nil { response.message = info }
        try appendEvent(MessageEvent.body(info), to: stored.participants, of: stored.id, now: now, step: &step)
        schedulePushes(for: record, in: stored, senderName: info.senderName, mentions: info.mentions ?? [], now: now, step: &step)
        endTyping(user, in: record.conversation, now: now)
    }

    /// Counts `bytes` of message content against `user`'s storage quota for today, or refuses with `quota_exceeded`.
    func chargeStorage(_ user: String, _ bytes: Int64, now: Int64) throws {
        let quota = configuration.storageQuota
        guard quota.isLimited else { return }
        let day = StorageQuota.day(now: now)
        let spent = try storageAllowances.spend(bytes, user: user, day: day, quota: quota) { amount in
            try store.chargeStorage(user: user, day: day, bytes: amount, limit: quota.bytesPerDay)
        }
        guard spent else { throw quota.exceeded(now: now) }
    }

    /// Schedules the pushes of a new message, decided when its grace period ends (P1-P4).
    func schedulePushes(
        for record: MessageRecord, in stored: ConversationRecord, senderName: String, mentions: [String] = [], now: Int64, step: inout SyncStep<Device>
    ) {
        // S7: not the sender; P1/S1: a recipient viewing the conversation gets no push at all.
        // One lookup for the whole group: when no device views the conversation, no recipient's devices are looked at.
        // Nobody viewing it (the common case): the participant list as the store shares it, the sender skipped later.
        var users = stored.participants
        var except: String? = record.sender
        if presence.isViewed(record.conversation) {
            users = Self.participants(stored.participants, without: record.sender).filter { !hasDeviceViewing($0, record.conversation) }
            except = nil
        }
        guard users.contains(where: { $0 != except }) else { return }
        // The push reads the same for every recipient: one preview and one schedule entry per message.
        let push = PushPreview.info(for: record, senderName: senderName, in: stored)
        step.effects.append(.schedulePush(PendingPush(
            deadline: now + max(configuration.pushGraceMilliseconds, 0), users: users, push: push, mentions: mentions, except: except)))
    }

    // MARK: - ack (U2-U7, P5)

    private func ack(_ ids: [String], user: String, now: Int64, into response: inout ResponseFrame, step: inout SyncStep<Device>) throws {
        // The store marks exactly the user's unread messages among `ids` and skips everything else
        // silently: others' conversations, own messages, unknown ids (R5, U3, S7).
        let newlyRead = try store.markRead(user: user, messageIds: ids, now: now)
        let marked = try clearMarks(acked: ids, newlyRead: newlyRead, user: user, now: now, step: &step)  // N4
        let counts = newlyRead.isEmpty ? [:] : try store.unreadCounts(user: user)
        let badge = AlertRules.messagesBadge(unread: newlyRead.isEmpty ? try store.unreadCounts(user: user) : counts, markedUnread: marked)
        var conversationsInOrder: [String] = []
        var readByConversation: [String: [String]] = [:]
        for message in newlyRead {
            if readByConversation[message.conversation] == nil { conversationsInOrder.append(message.conversation) }
            readByConversation[message.conversation, default: []].append(message.id)
        }
        var unread: [String: Int] = [:]
        for conversation in conversationsInOrder {
            let count = counts[conversation] ?? 0
            unread[conversation] = count
            var event = EventFrame(event: .read)
            event.conversationId = conversation
            event.messages = readByConversation[conversation]
            event.unread = [conversation: count]
            event.badge = badge
            try appendEvent(event.encodeBody(), to: [user], now: now, step: &step)  // U4, U7
        }
        for message in newlyRead {
            var receipt = EventFrame(event: .receipt)  // U6
            receipt.conversationId = message.conversation
            receipt.messageId = message.id
            receipt.reader = user
            receipt.at = now
            try appendEvent(receipt.encodeBody(), to: [message.sender], now: now, step: &step)
            // P5: withdraw the pushes the user's devices already received for it.
            try withdrawDeliveredPushes(message: message.id, conversation: message.conversation, user: user, now: now, step: &step)
        }
        response.read = newlyRead.map(\.id)
        response.unread = unread
        response.badge = badge
        response.latest = try store.latestSeq(user: user)
    }

    // MARK: - Helpers

    /// Appends one event body to each user's stream (one store call: the body is stored once) and queues it for
    /// their live devices. `users` are distinct: one user, or the participants of `conversation` (a primary key).
    func appendEvent(_ body: [UInt8], to users: [String], of conversation: String? = nil, now: Int64, step: inout SyncStep<Device>) throws {
        let seqs = try store.appendEvent(users: users, payload: body, now: now, toParticipantsOf: conversation)
        // One shared copy of the body (without "{") for the whole fan-out; each user's frame adds only its seq.
        let shared = body.withUnsafeBytes { SharedBytes(copying: UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }
        step.effects.append(.streamEvent(users: users, seqs: seqs, body: shared, conversation: conversation))
    }

    /// Tells every participant of a new conversation about it.
    func announce(_ conversation: ConversationRecord, now: Int64, step: inout SyncStep<Device>) throws {
        var event = EventFrame(event: .conversation)
        event.conversation = try conversationInfo(conversation, unread: 0, lastMessage: nil)
        try appendEvent(event.encodeBody(), to: conversation.participants, now: now, step: &step)
        introduce(conversation)
    }

    /// Creates a bell notification for `user` and streams it to them (B1-B3).
    func notify(
        _ user: String, kind: NotificationKind, actor: String?, text: String, url: String?, now: Int64, step: inout SyncStep<Device>
    ) throws -> NotificationInfo {
        let record = try store.createNotification(user: user, kind: kind.rawValue, actor: actor, text: text, url: url, now: now)
        var event = EventFrame(event: .bell)
        event.action = .created
        event.notification = record.info
        let bellUnread = try store.unreadNotificationCount(user: user)
        event.bellUnread = bellUnread
        try appendEvent(event.encodeBody(), to: [user], now: now, step: &step)
        try queueBellPush(record, bellUnread: bellUnread, now: now, step: &step)
        return record.info
    }

    /// `user` leaves the group `conversation` (their own request, or the backend removing them). Everyone who was in
    /// it hears of it, the leaver included (their other devices drop it); a direct conversation cannot be left, which is
    /// a conflict with the conversation's kind (`conflict`, HTTP 409), not a malformed request.
    /// The others then see the line "Carol left" (G4), or "Carol was removed" when the backend took them out.
    func leave(_ user: String, conversation: String, byBackend: Bool = false, now: Int64, step: inout SyncStep<Device>) throws {
        try requireParticipant(user, conversation)
        guard let record = try store.conversation(id: conversation), record.kind == .group else {
            throw ErrorInfo(.conflict, "this is a direct conversation: only a group can be left")
        }
        let who = try name(of: user)
        try removeFromGroup(user, record, line: byBackend ? GroupLines.removedByBackend(who) : GroupLines.left(who), actor: user, now: now, step: &step)
    }

    /// Refuses `user`'s tokens issued until now (every device's, or `device`'s) and closes the matching live
    /// connections on this node. The sign-out covers the current second and the clock skew a verifier allows
    /// (``TokenTimes/signOutBoundary(now:)``): a token dated ahead of the clock is refused as well, never one from
    /// before the sign-out accepted.
    func signOut(_ user: String, device: String?, now: Int64, step: inout SyncStep<Device>) throws {
        try store.signOut(user: user, device: device, issuedBefore: TokenTimes.signOutBoundary(now: now / 1000))
        try removePushTargets(user: user, device: device)
        closeSignedOut(user, device: device, step: &step)
    }

    /// Closes this node's live connections of `user` (every one, or those named `device`) with 4001.
    func closeSignedOut(_ user: String, device: String?, step: inout SyncStep<Device>) {
        step.signedOut.insert(user)
        for live in devicesByUser[user] ?? [] where device == nil || live.state.name == device {
            step.effects.append(.close(live.device, code: HeraldCloseCode.credentialsEnded, reason: "signed out"))
        }
    }

    /// R5: unknown and foreign conversations are refused alike.
    func requireParticipant(_ user: String, _ conversation: String) throws {
        guard try store.isParticipant(user: user, conversation: conversation) else {
            throw ErrorInfo(.notParticipant, "no such conversation")
        }
    }

    /// `sorted` without `user`: found by binary search where the list is in byte order (``SortedUserIDs``), not by
    /// comparing every id of a large group; a list in another order is scanned.
    static func participants(_ sorted: [String], without user: String) -> [String] {
        var others = sorted
        if let index = SortedUserIDs.index(of: user, in: sorted) {
            others.remove(at: index)
        } else {
            others.removeAll { $0 == user }
        }
        return others
    }

    /// Whether any of the user's devices is viewing the conversation (S1), for a caller that checked ``presence`` once
    /// for many users.
    private func hasDeviceViewing(_ user: String, _ conversation: String) -> Bool {
        (devicesByUser[user] ?? []).contains { $0.state.scene.viewing == conversation }
    }

    /// Every scene change goes through here, so ``presence`` stays exact.
    func setScene(_ report: SceneReport, of state: DeviceState) {
        presence.change(from: state.scene, to: report)
        let previous = state.scene
        state.scene = report
        sceneChanged(state, from: previous)
    }

    func name(of user: String) throws -> String {
        if let cached = names[user] { return cached }
        let name = try store.user(id: user)?.name ?? user
        names[user] = name
        return name
    }

    /// A conversation as a list answer (snapshot, `conversations`) shows it: a big group names its first
    /// ``SyncConfiguration/listedParticipants`` participants and says how many there are, so the answer's size grows
    /// with the number of conversations, not with their members (`members` pages through the rest).
    func listedConversationInfo(_ summary: ConversationSummary) throws -> ConversationInfo {
        var record = summary.conversation
        let total = record.participants.count
        guard total > configuration.listedParticipants else { return try conversationInfo(summary) }
        record.participants = Array(record.participants.prefix(configuration.listedParticipants))
        var info = try conversationInfo(record, unread: summary.unreadCount, lastMessage: summary.lastMessage)
        info.participantCount = total
        return info
    }

    func conversationInfo(_ summary: ConversationSummary) throws -> ConversationInfo {
        try conversationInfo(summary.conversation, unread: summary.unreadCount, lastMessage: summary.lastMessage)
    }

    func conversationInfo(_ record: ConversationRecord, for user: String) throws -> ConversationInfo {
        let last = try lastShownMessage(in: record.id)
        return try conversationInfo(record, unread: try store.unreadCount(user: user, conversation: record.id), lastMessage: last)
    }

    func conversationInfo(_ record: ConversationRecord, unread: Int, lastMessage: MessageRecord?) throws -> ConversationInfo {
        ConversationInfo(
            id: record.id, kind: record.kind == .group ? .group : .direct, title: record.title,
            participants: try record.participants.map { ParticipantInfo(id: $0, name: try name(of: $0)) }, unread: unread,
            lastMessage: try lastMessage.map { try $0.info(senderName: name(of: $0.sender)) }, lastActivity: record.lastActivity)
    }
}
