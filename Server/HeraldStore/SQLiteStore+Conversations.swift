import HeraldStoreProtocol
extension SQLiteStore {
    // MARK: - Conversations

    public func findOrCreateDirect(between a: String, and b: String, now: Int64) throws -> (conversation: ConversationRecord, created: Bool) {
        let (low, high) = a <= b ? (a, b) : (b, a)
        return try transaction {
            if let id = try connection.scalar(
                "SELECT id FROM conversations WHERE direct_low = ? AND direct_high = ?", .text(low), .text(high)),
                let existing = try conversation(rowid: id)
            {
                return (existing, false)
            }
            try requireUsers([low, high])
            try connection.execute(
                "INSERT INTO conversations (kind, title, direct_low, direct_high, created_at, last_activity) VALUES (?, NULL, ?, ?, ?, ?)",
                .int(ConversationRecord.Kind.direct.rawValue), .text(low), .text(high), .int(now), .int(now))
            let rowid = connection.lastInsertRowID
            try addParticipants(rowid, low == high ? [low] : [low, high])
            return (ConversationRecord(
                id: RecordID.format(RecordID.conversation, rowid), kind: .direct, title: nil,
                participants: low == high ? [low] : [low, high], createdAt: now, lastActivity: now), true)
        }
    }

    public func createGroup(title: String, creator: String, members: [String], now: Int64) throws -> ConversationRecord {
        let participants = Array(Set(members + [creator])).sorted()
        return try transaction {
            try requireUsers(participants)
            try connection.execute(
                "INSERT INTO conversations (kind, title, created_at, last_activity, created_by) VALUES (?, ?, ?, ?, ?)",
                .int(ConversationRecord.Kind.group.rawValue), .text(title), .int(now), .int(now), .text(creator))
            let rowid = connection.lastInsertRowID
            try addParticipants(rowid, participants)
            return ConversationRecord(
                id: RecordID.format(RecordID.conversation, rowid), kind: .group, title: title,
                participants: participants, createdAt: now, lastActivity: now)
        }
    }

    public func conversation(id: String) throws -> ConversationRecord? {
        guard let rowid = RecordID.parse(RecordID.conversation, id) else { return nil }
        return try conversation(rowid: rowid)
    }

    public func isParticipant(user: String, conversation: String) throws -> Bool {
        guard let rowid = RecordID.parse(RecordID.conversation, conversation) else { return false }
        return try isParticipant(user: user, rowid: rowid)
    }

    public func conversations(for user: String) throws -> [ConversationSummary] {
        // One read transaction so the list is a consistent snapshot.
        try snapshot {
            let rowids = try connection.query(
                """
                SELECT c.id FROM participants p JOIN conversations c ON c.id = p.conversation_id
                WHERE p.user_id = ? ORDER BY c.last_activity DESC, c.id DESC
                """, .text(user)
            ) { row in row.int(0) }
            var summaries: [ConversationSummary] = []
            summaries.reserveCapacity(rowids.count)
            for rowid in rowids {
                guard let record = try conversation(rowid: rowid) else { continue }
                let lastMessage = try connection.queryFirst(
                    "SELECT \(Self.messageColumns) FROM messages WHERE conversation_id = ? AND unsent_at IS NULL ORDER BY id DESC LIMIT 1", .int(rowid),
                    row: Self.messageRecord)
                summaries.append(ConversationSummary(
                    conversation: record, unreadCount: try unreadCount(user: user, rowid: rowid), lastMessage: lastMessage))
            }
            return summaries
        }
    }

    public func contacts(of user: String, inConversationsOfAtMost maxParticipants: Int) throws -> [String] {
        // The participant lists come from the cache (fixed at creation, so read once): a device coming online in a
        // group of 1,000 no longer counts the group's rows in SQL at every connect, it looks at one cached count.
        let conversations = try connection.query(
            "SELECT conversation_id FROM participants WHERE user_id = ?", .text(user)) { row in row.int(0) }
        var contacts = Set<String>()
        for conversation in conversations {
            let participants = try participants(of: conversation)
            guard participants.count <= maxParticipants else { continue }
            for participant in participants where participant != user { contacts.insert(participant) }
        }
        // Byte order, as SQLite's BINARY collation sorts the ids everywhere else.
        return contacts.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    // MARK: - Internals

    func conversation(rowid: Int64) throws(StoreError) -> ConversationRecord? {
        guard
            let base = try connection.queryFirst(
                "SELECT kind, title, created_at, last_activity FROM conversations WHERE id = ?", .int(rowid),
                row: { row in (kind: row.int(0), title: row.optionalText(1), createdAt: row.int(2), lastActivity: row.int(3)) })
        else { return nil }
        let participants = try participants(of: rowid)
        return ConversationRecord(
            id: RecordID.format(RecordID.conversation, rowid), kind: ConversationRecord.Kind(rawValue: base.kind) ?? .group,
            title: base.title, participants: participants, createdAt: base.createdAt, lastActivity: base.lastActivity)
    }

    public func removeParticipant(user: String, conversation: String) throws {
        guard let rowid = RecordID.parse(RecordID.conversation, conversation) else { return }
        // The conversation's later bodies do not name the user: their stream's file row must not need them to be read.
        try writeLaggingRun(of: user)
        try connection.execute("DELETE FROM participants WHERE conversation_id = ? AND user_id = ?", .int(rowid), .text(user))
        // Every fan-out reads the participants from the cache: it must stop naming the user now.
        participantsCache.forget(rowid)
    }

    /// From memory after the first read while the participants are cached: kind and creation never change, and the
    /// title and participants are the cache's (a leave, an add or a rename forgets both). `lastActivity` stays as first read: a send needs none,
    /// and reading the row again was ~5,000 instructions of an acknowledged send.
    public func conversationForDelivery(id: String) throws -> ConversationRecord? {
        guard let rowid = RecordID.parse(RecordID.conversation, id) else { return nil }
        if let record = participantsCache.record(of: rowid) { return record }
        guard let record = try conversation(rowid: rowid) else { return nil }
        if !connection.isReadOnly { participantsCache.keep(record, of: rowid) }
        return record
    }

    func isParticipant(user: String, rowid: Int64) throws(StoreError) -> Bool {
        if let cached = participantsCache.participants(of: rowid) { return SortedUserIDs.index(of: user, in: cached) != nil }
        return try connection.scalar(
            "SELECT 1 FROM participants WHERE conversation_id = ? AND user_id = ?", .int(rowid), .text(user)) != nil
    }

    /// The conversation's participants, sorted; from memory after the first read (read-write stores only).
    func participants(of rowid: Int64) throws(StoreError) -> [String] {
        if let cached = participantsCache.participants(of: rowid) { return cached }
        let participants = try connection.query(
            "SELECT user_id FROM participants WHERE conversation_id = ? ORDER BY user_id", .int(rowid)
        ) { row in row.text(0) }
        if !connection.isReadOnly { participantsCache.store(participants, of: rowid, inTransaction: isInTransaction) }
        return participants
    }

    private func requireUsers(_ ids: [String]) throws(StoreError) {
        for id in ids where try connection.scalar("SELECT 1 FROM users WHERE id = ?", .text(id)) == nil {
            throw StoreError(kind: .notFound, message: "unknown user \(id)")
        }
    }

    private func addParticipants(_ rowid: Int64, _ users: [String]) throws(StoreError) {
        for user in users {
            try connection.execute("INSERT INTO participants (conversation_id, user_id) VALUES (?, ?)", .int(rowid), .text(user))
        }
    }
}
