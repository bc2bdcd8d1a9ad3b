import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol

/// N1-N4: mute, mentions, quiet hours and mark unread. The settings belong to the user: each change is one stream
/// event (`settings`) to all of their devices, on every node, with a seq like any other (U7, R3).
extension SyncCore {
    // MARK: - Requests

    /// N1: mutes `conversation` until `until` (ms since the epoch), or until unmuted when nil.
    func mute(_ conversation: String, until: Int64?, user: String, now: Int64, into response: inout ResponseFrame, step: inout SyncStep<Device>) throws {
        try requireParticipant(user, conversation)
        if let until, until <= now {
            throw ErrorInfo(.badRequest, "field 'until' (\(until)) is not in the future: a mute ends after now (\(now) ms since the epoch)")
        }
        if try store.setMute(user: user, conversation: conversation, until: until ?? MuteRules.forever) {
            var event = EventFrame(event: .settings)
            event.conversationId = conversation
            event.muted = true
            event.mutedUntil = until
            try appendEvent(event.encodeBody(), to: [user], now: now, step: &step)
            if let until { muteEnds(at: until) }
        }
        response.conversation = try conversationInfo(conversation, for: user, now: now)
        response.latest = try store.latestSeq(user: user)
    }

    /// N1: ends the mute of `conversation` (nothing happens when it was not muted).
    func unmute(_ conversation: String, user: String, now: Int64, into response: inout ResponseFrame, step: inout SyncStep<Device>) throws {
        try requireParticipant(user, conversation)
        if try store.setMute(user: user, conversation: conversation, until: nil) {
            var event = EventFrame(event: .settings)
            event.conversationId = conversation
            event.muted = false
            try appendEvent(event.encodeBody(), to: [user], now: now, step: &step)
        }
        response.conversation = try conversationInfo(conversation, for: user, now: now)
        response.latest = try store.latestSeq(user: user)
    }

    /// N3: quiet hours on or off for every device of the user.
    func setQuietHours(_ on: Bool, user: String, now: Int64, into response: inout ResponseFrame, step: inout SyncStep<Device>) throws {
        if try store.setQuiet(user: user, on: on) {
            var event = EventFrame(event: .settings)
            event.quiet = on
            try appendEvent(event.encodeBody(), to: [user], now: now, step: &step)
        }
        response.quiet = on
        response.latest = try store.latestSeq(user: user)
    }

    /// N4: marks `conversation` unread: it counts at least one in the badge until one of its messages becomes visible.
    func markUnread(_ conversation: String, user: String, now: Int64, into response: inout ResponseFrame, step: inout SyncStep<Device>) throws {
        try requireParticipant(user, conversation)
        let counts = try store.unreadCounts(user: user)
        if try store.setMarkedUnread(user: user, conversation: conversation, marked: true) {
            try appendMarkEvent(conversation, marked: true, user: user, counts: counts, now: now, step: &step)
        }
        response.unread = [conversation: counts[conversation] ?? 0]
        response.badge = try messagesBadge(user: user, counts: counts)
        response.latest = try store.latestSeq(user: user)
    }

    /// N4: an ack of messages of a conversation marked unread clears the mark (U2: they became visible), whether or not
    /// they were unread. Returns the marks left, for the ack's badge. Costs one read when the user has no mark.
    func clearMarks(acked ids: [String], newlyRead: [MessageRecord], user: String, now: Int64, step: inout SyncStep<Device>) throws -> Set<String> {
        var marked = try store.alertSettings(users: [user])[user]?.markedUnread ?? []
        guard !marked.isEmpty else { return marked }
        var seen = Set(newlyRead.map(\.conversation))
        let newlyReadIds = Set(newlyRead.map(\.id))
        // Messages that were read already say which conversation they are in only through the store (few: one screen).
        for id in ids where !newlyReadIds.contains(id) {
            if marked.isSubset(of: seen) { break }
            guard let record = try store.message(id: id), marked.contains(record.conversation) else { continue }
            seen.insert(record.conversation)
        }
        let visible = marked.intersection(seen)
        guard !visible.isEmpty else { return marked }
        let counts = try store.unreadCounts(user: user)
        for conversation in visible.sorted() where try store.setMarkedUnread(user: user, conversation: conversation, marked: false) {
            marked.remove(conversation)
            try appendMarkEvent(conversation, marked: false, user: user, counts: counts, marked: marked, now: now, step: &step)
        }
        return marked
    }

    /// The `settings` event of a mark, with the conversation's unread count and the badge after it (U7: its seq).
    private func appendMarkEvent(
        _ conversation: String, marked: Bool, user: String, counts: [String: Int], marked left: Set<String>? = nil, now: Int64,
        step: inout SyncStep<Device>
    ) throws {
        var event = EventFrame(event: .settings)
        event.conversationId = conversation
        event.markedUnread = marked
        event.unread = [conversation: counts[conversation] ?? 0]
        if let left {
            event.badge = AlertRules.messagesBadge(unread: counts, markedUnread: left)
        } else {
            event.badge = try messagesBadge(user: user, counts: counts)
        }
        try appendEvent(event.encodeBody(), to: [user], now: now, step: &step)
    }

    // MARK: - Counts and lists

    /// U1 with N4: the Messages badge, counting each conversation marked unread as at least one.
    func messagesBadge(user: String, counts: [String: Int]? = nil) throws -> Int {
        let counts = try counts ?? store.unreadCounts(user: user)
        let marked = try store.alertSettings(users: [user])[user]?.markedUnread ?? []
        return AlertRules.messagesBadge(unread: counts, markedUnread: marked)
    }

    /// A conversation list answer (snapshot, `conversations`): the rows with the user's mutes and marks (N1, N4), their
    /// unread counts, the badge and quiet hours (N3).
    func fillConversationList(_ summaries: [ConversationSummary], user: String, now: Int64, into response: inout ResponseFrame) throws {
        let settings = try store.alertSettings(users: [user])[user] ?? UserAlertSettings()
        response.conversations = try summaries.map { Self.withSettings(try listedConversationInfo($0), settings, now: now) }
        let counts = Dictionary(summaries.map { ($0.conversation.id, $0.unreadCount) }, uniquingKeysWith: { first, _ in first })
        response.unread = counts
        response.badge = AlertRules.messagesBadge(unread: counts, markedUnread: settings.markedUnread)
        response.quiet = settings.quiet
    }

    /// One conversation as the user sees it now, with their mute and mark.
    func conversationInfo(_ conversation: String, for user: String, now: Int64) throws -> ConversationInfo? {
        guard let record = try store.conversation(id: conversation) else { return nil }
        let settings = try store.alertSettings(users: [user])[user] ?? UserAlertSettings()
        return Self.withSettings(try conversationInfo(record, for: user), settings, now: now)
    }

    /// N1, N4 on a conversation row: `muted` while a mute is in force (`mutedUntil` unless it is forever), `markedUnread`.
    static func withSettings(_ info: ConversationInfo, _ settings: UserAlertSettings, now: Int64) -> ConversationInfo {
        var info = info
        if let until = settings.mutedUntil[info.id], MuteRules.isMuted(until: until, now: now) {
            info.muted = true
            info.mutedUntil = until == MuteRules.forever ? nil : until
        }
        if settings.markedUnread.contains(info.id) { info.markedUnread = true }
        return info
    }

    // MARK: - Push (N1-N3 inside P1-P4)

    /// N2: the participants a message mentions, other than its sender; only in groups (``MessageEvent/mentions(of:in:)``).
    static func mentions(of record: MessageRecord, in conversation: ConversationRecord) -> [String] {
        MessageEvent.mentions(of: record, in: conversation)
    }

    /// What the push rule needs to know of one recipient of a message (N1-N3).
    static func recipientAlert(_ user: String, conversation: String, mentions: [String], settings: UserAlertSettings?, now: Int64) -> RecipientAlert {
        RecipientAlert(
            muted: MuteRules.isMuted(until: settings?.mutedUntil[conversation], now: now), mentioned: mentions.contains(user),
            quiet: settings?.quiet ?? false)
    }
}

extension PushInfo {
    /// The push as one recipient gets it: `mentioned` (N2) and `quiet` (N3) when they apply.
    func flagged(_ alert: RecipientAlert) -> PushInfo {
        var push = self
        push.mentioned = alert.mentioned ? true : nil
        push.quiet = alert.quiet ? true : nil
        return push
    }
}
