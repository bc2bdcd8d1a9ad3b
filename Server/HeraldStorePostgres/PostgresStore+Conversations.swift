import HeraldStore

extension PostgresStore {
    // MARK: - Conversations

    public func findOrCreateDirect(between a: String, and b: String, now: Int64) throws -> (conversation: ConversationRecord, created: Bool) {
        let (low, high) = a <= b ? (a, b) : (b, a)
        return try transaction {
            if let existing = try directConversation(low, high) { return (existing, false) }
            try requireUsers([low, high])
            // Another node may create the same pair meanwhile: the unique pair makes one insert win, and
            // the other waits for its commit, inserts nothing and returns the winner's conversation.
            guard
                let key = try connection.scalar(
                    """
                    INSERT INTO conversations (kind, title, direct_low, direct_high, created_at, last_activity)
                    VALUES ($1, NULL, $2, $3, $4, $4) ON CONFLICT (direct_low, direct_high) DO NOTHING RETURNING id
                    """, .int(ConversationRecord.Kind.direct.rawValue), .text(low), .text(high), .int(now))
            else {
                guard let existing = try directConversation(low, high) else {
                    throw StoreError(kind: .notFound, message: "direct conversation \(low)/\(high) vanished")
                }
                return (existing, false)
            }
            let participants = low == high ? [low] : [low, high]
            try addParticipants(key, participants)
            let record = ConversationRecord(
                id: RecordID.format(RecordID.conversation, key), kind: .direct, title: nil,
                participants: participants, createdAt: now, lastActivity: now)
            // Kept from the commit on, like a conversation read: the first sends need no round trip to find it.
            conversationsInTransaction[key] = record
            return (record, true)
        }
    }

    public func createGroup(title: String, creator: String, members: [String], now: Int64) throws -> ConversationRecord {
        let participants = Array(Set(members + [creator])).sorted()
        return try transaction {
            try requireUsers(participants)
            guard
                let key = try connection.scalar(
                    "INSERT INTO conversations (kind, title, created_at, last_activity) VALUES ($1, $2, $3, $3) RETURNING id",
                    .int(ConversationRecord.Kind.group.rawValue), .text(title), .int(now))
            else { throw StoreError(kind: .other, message: "INSERT … RETURNING returned no row") }
            try addParticipants(key, participants)
            let record = ConversationRecord(
                id: RecordID.format(RecordID.conversation, key), kind: .group, title: title,
                participants: participants, createdAt: now, lastActivity: now)
            conversationsInTransaction[key] = record
            return record
        }
    }

    public func conversation(id: String) throws -> ConversationRecord? {
        guard let key = RecordID.parse(RecordID.conversation, id) else { return nil }
        // Participants never change after creation, so the two reads need no snapshot.
        return try conversation(key: key)
    }

    public func isParticipant(user: String, conversation: String) throws -> Bool {
        guard let key = RecordID.parse(RecordID.conversation, conversation) else { return false }
        return try isParticipant(user: user, key: key)
    }

    public func conversations(for user: String) throws -> [ConversationSummary] {
        try writePending()
        // Two statements (rows with counts and last messages, then every participant) in one snapshot,
        // instead of a round trip per conversation.
        return try snapshot {
            var participants: [Int64: [String]] = [:]
            for (key, member) in try connection.query(
                """
                SELECT o.conversation_id, o.user_id FROM participants p JOIN participants o ON o.conversation_id = p.conversation_id
                WHERE p.user_id = $1 ORDER BY o.conversation_id, o.user_id
                """, .text(user), row: { row in (row.int(0), row.text(1)) })
            {
                participants[key, default: []].append(member)
            }
            return try connection.query(
                """
                SELECT c.id, c.kind, c.title, c.created_at, c.last_activity,
                       c.message_count - p.sent_count - p.read_count,
                       m.id, m.conversation_id, m.sender_id, m.client_message_id, m.kind, m.text, m.image_url, m.created_at,
                       m.edit_count, m.edited_at, m.unsent_at
                FROM participants p JOIN conversations c ON c.id = p.conversation_id
                LEFT JOIN LATERAL (
                    SELECT * FROM messages x WHERE x.conversation_id = c.id AND x.unsent_at IS NULL ORDER BY x.id DESC LIMIT 1
                ) m ON true
                WHERE p.user_id = $1 ORDER BY c.last_activity DESC, c.id DESC
                """, .text(user)
            ) { row in
                let key = row.int(0)
                let record = ConversationRecord(
                    id: RecordID.format(RecordID.conversation, key), kind: ConversationRecord.Kind(rawValue: row.int(1)) ?? .group,
                    title: row.optionalText(2), participants: participants[key] ?? [], createdAt: row.int(3), lastActivity: row.int(4))
                let last = row.isNull(6) ? nil : Self.messageRecord(row, from: 6)
                return ConversationSummary(conversation: record, unreadCount: Int(row.int(5)), lastMessage: last)
            }
        }
    }

    public func contacts(of user: String, inConversationsOfAtMost maxParticipants: Int) throws -> [String] {
        // Participants change only in a transaction that commits them at once (creation, a member leaving), so what
        // this transaction holds back (messages, runs) does not matter here.
        try connection.query(
            """
            SELECT DISTINCT o.user_id FROM participants p JOIN participants o ON o.conversation_id = p.conversation_id
            WHERE p.user_id = $1 AND o.user_id <> $1
              AND (SELECT count(*) FROM participants c WHERE c.conversation_id = p.conversation_id) <= $2
            ORDER BY o.user_id
            """, .text(user), .int(Int64(maxParticipants))
        ) { row in row.text(0) }
    }

    // MARK: - Internals

    /// The conversation with its participants, in one statement. Kept for the rest of the transaction: a batch of
    /// sends to one group reads it once (participants change only by a member leaving, whose own requests run on
    /// this thread, and a leave on another node is seen from the next batch on).
    func conversation(key: Int64) throws(StoreError) -> ConversationRecord? {
        if let cached = conversationsInTransaction[key] { return cached }
        if connection.transactionDepth > 0, transactionGeneration != nil, let cached = committedConversations[key] {
            conversationsInTransaction[key] = cached
            return cached
        }
        var record: ConversationRecord?
        for row in try connection.query(
            """
            SELECT c.kind, c.title, c.created_at, c.last_activity, p.user_id
            FROM conversations c LEFT JOIN participants p ON p.conversation_id = c.id WHERE c.id = $1 ORDER BY p.user_id
            """, .int(key),
            row: { row in (kind: row.int(0), title: row.optionalText(1), createdAt: row.int(2), lastActivity: row.int(3), member: row.optionalText(4)) })
        {
            if record == nil {
                record = ConversationRecord(
                    id: RecordID.format(RecordID.conversation, key), kind: ConversationRecord.Kind(rawValue: row.kind) ?? .group,
                    title: row.title, participants: [], createdAt: row.createdAt, lastActivity: row.lastActivity)
            }
            if let member = row.member { record?.participants.append(member) }
        }
        if let record, connection.transactionDepth > 0 { conversationsInTransaction[key] = record }
        return record
    }

    public func removeParticipant(user: String, conversation: String) throws {
        guard let key = RecordID.parse(RecordID.conversation, conversation) else { return }
        // In a transaction of its own when called alone: it moves the write clock, so other nodes drop their copies.
        try transaction {
            try writePending()
            conversationsInTransaction[key] = nil
            committedConversations[key] = nil
            // The leaver's counters go with their row: their unread no longer counts (U1).
            try connection.execute("DELETE FROM participants WHERE conversation_id = $1 AND user_id = $2", .int(key), .text(user))
            // Other nodes keep this conversation in memory: the wake-up tells them to forget it.
            pending.addSignal("left \(key)")
        }
    }

    func isParticipant(user: String, key: Int64) throws(StoreError) -> Bool {
        if let cached = conversationsInTransaction[key] { return cached.participants.contains(user) }
        if connection.transactionDepth > 0, transactionGeneration != nil, let cached = committedConversations[key] {
            conversationsInTransaction[key] = cached
            return cached.participants.contains(user)
        }
        return try connection.scalar("SELECT 1::bigint FROM participants WHERE conversation_id = $1 AND user_id = $2", .int(key), .text(user)) != nil
    }

    private func directConversation(_ low: String, _ high: String) throws -> ConversationRecord? {
        guard let key = try connection.scalar("SELECT id FROM conversations WHERE direct_low = $1 AND direct_high = $2", .text(low), .text(high))
        else { return nil }
        return try conversation(key: key)
    }

    private func requireUsers(_ ids: [String]) throws(StoreError) {
        for id in ids where try connection.scalar("SELECT 1::bigint FROM users WHERE id = $1", .text(id)) == nil {
            throw StoreError(kind: .notFound, message: "unknown user \(id)")
        }
    }

    private func addParticipants(_ key: Int64, _ users: [String]) throws(StoreError) {
        for user in users {
            try connection.execute("INSERT INTO participants (conversation_id, user_id) VALUES ($1, $2)", .int(key), .text(user))
        }
    }
}
