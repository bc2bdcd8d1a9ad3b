import HeraldStore

extension PostgresStore {
    // MARK: - Conversations

    public func findOrCreateDirect(between a: String, and b: String, now: Int64) throws -> (conversation: ConversationRecord, created: Bool) {
        let (low, high) = a <= b ? (a, b) : (b, a)
        return try transaction {
            if let found = try findOrInsertDirect(low, high, now: now) { return found }
            // The rare cases, step by step: an unknown user (a clear error), or a pair another node inserted after this
            // statement's snapshot was taken (its insert won; a new statement sees it once that node committed).
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
            // One round trip whatever the group's size (checking and inserting member by member took two per member).
            guard
                let key = try connection.scalar(
                    """
                    WITH created AS (
                        INSERT INTO conversations (kind, title, created_at, last_activity, created_by)
                        SELECT $1, $2, $3, $3, $6 WHERE (SELECT count(*) FROM users WHERE id = ANY($4::text[])) = $5
                        RETURNING id
                    ), joined AS (
                        INSERT INTO participants (conversation_id, user_id) SELECT created.id, member FROM created, unnest($4::text[]) AS member
                    )
                    SELECT id FROM created
                    """,
                    .int(ConversationRecord.Kind.group.rawValue), .text(title), .int(now), .textArray(participants), .int(Int64(participants.count)),
                    .text(creator))
            else {
                // Nothing inserted: a member is unknown (the check names which).
                try requireUsers(participants)
                throw StoreError(kind: .other, message: "INSERT … RETURNING returned no row")
            }
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
        // One statement (so one snapshot): each conversation's row with its counts, its last message and every
        // participant (in byte order, as a group keeps them), instead of a round trip per conversation or per part.
        return try connection.query(
            """
            SELECT c.id, c.kind, c.title, c.created_at, c.last_activity,
                   c.message_count - p.sent_count - p.read_count,
                   m.id, m.conversation_id, m.sender_id, m.client_message_id, m.kind, m.text, m.image_url, m.created_at,
                   m.edit_count, m.edited_at, m.unsent_at,
                   (SELECT array_agg(o.user_id ORDER BY o.user_id) FROM participants o WHERE o.conversation_id = c.id)
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
                title: row.optionalText(2), participants: row.textArray(17) ?? [], createdAt: row.int(3), lastActivity: row.int(4))
            let last = row.isNull(6) ? nil : Self.messageRecord(row, from: 6)
            return ConversationSummary(conversation: record, unreadCount: Int(row.int(5)), lastMessage: last)
        }
    }

    /// The batch query for one user: one statement says who counts as a contact.
    public func contacts(of user: String, inConversationsOfAtMost maxParticipants: Int) throws -> [String] {
        try contacts(ofEach: [user], inConversationsOfAtMost: maxParticipants)[user] ?? []
    }

    /// One statement for all of `users`: after a node's devices left together, one contacts query per departing user
    /// was a round trip each, and the node took seconds to work them off. Each conversation's size is counted once,
    /// and only up to one past the limit (a group of thousands is not counted whole for each of its members).
    /// Participants change only in a transaction that commits them at once (creation, a member leaving), so what this
    /// transaction holds back (messages, runs) does not matter here.
    public func contacts(ofEach users: [String], inConversationsOfAtMost maxParticipants: Int) throws -> [String: [String]] {
        guard !users.isEmpty else { return [:] }
        var contacts: [String: [String]] = [:]
        for row in try connection.query(
            """
            WITH mine AS (SELECT user_id, conversation_id FROM participants WHERE user_id = ANY ($1)),
            small AS (
                SELECT c.conversation_id FROM (SELECT DISTINCT conversation_id FROM mine) c
                WHERE (SELECT count(*) FROM (SELECT 1 FROM participants p WHERE p.conversation_id = c.conversation_id LIMIT $2 + 1) n) <= $2)
            SELECT DISTINCT m.user_id, o.user_id FROM mine m JOIN small s ON s.conversation_id = m.conversation_id
            JOIN participants o ON o.conversation_id = m.conversation_id AND o.user_id <> m.user_id
            ORDER BY 1, 2
            """, .textArray(Array(Set(users))), .int(Int64(maxParticipants)),
            row: { row in (row.text(0), row.text(1)) })
        {
            contacts[row.0, default: []].append(row.1)
        }
        return contacts
    }

    // MARK: - Internals

    /// The conversation with its participants, in one statement. Kept for the rest of the transaction: a batch of
    /// sends to one group reads it once (participants change only by a member leaving, whose own requests run on
    /// this thread, and a leave on another node is seen from the next batch on).
    func conversation(key: Int64) throws(StoreError) -> ConversationRecord? {
        if let cached = cachedConversation(key: key) { return cached }
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

    /// The conversation as this transaction or this node's last commits hold it, without asking the database.
    private func cachedConversation(key: Int64) -> ConversationRecord? {
        if let cached = conversationsInTransaction[key] { return cached }
        if connection.transactionDepth > 0, transactionGeneration != nil, let cached = committedConversations[key] {
            conversationsInTransaction[key] = cached
            return cached
        }
        return nil
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

    /// The direct conversation of `low` and `high` (sorted), created with its participants when both users exist and
    /// it does not: ONE round trip, where looking it up, checking both users, inserting it and inserting each participant
    /// took six (opening thousands of DMs at once held the sync thread for seconds, one batch of requests after another
    /// waiting behind them). nil when the statement found nothing and inserted nothing: an unknown user, or another node
    /// inserting the same pair at the same moment.
    private func findOrInsertDirect(_ low: String, _ high: String, now: Int64) throws -> (conversation: ConversationRecord, created: Bool)? {
        let participants = low == high ? [low] : [low, high]
        let found = try connection.queryFirst(
            """
            WITH existing AS (
                SELECT id, created_at, last_activity FROM conversations WHERE direct_low = $1 AND direct_high = $2
            ), created AS (
                INSERT INTO conversations (kind, title, direct_low, direct_high, created_at, last_activity)
                SELECT $3, NULL, $1, $2, $4, $4
                WHERE NOT EXISTS (SELECT 1 FROM existing) AND (SELECT count(*) FROM users WHERE id = ANY($5::text[])) = $6
                ON CONFLICT (direct_low, direct_high) DO NOTHING
                RETURNING id, created_at, last_activity
            ), joined AS (
                INSERT INTO participants (conversation_id, user_id) SELECT created.id, member FROM created, unnest($5::text[]) AS member
            )
            SELECT id, created_at, last_activity, 1::bigint FROM created
            UNION ALL SELECT id, created_at, last_activity, 0::bigint FROM existing
            """,
            .text(low), .text(high), .int(ConversationRecord.Kind.direct.rawValue), .int(now), .textArray(participants), .int(Int64(participants.count)),
            row: { row in (key: row.int(0), createdAt: row.int(1), lastActivity: row.int(2), created: row.int(3) == 1) })
        guard let found else { return nil }
        // An existing conversation this node already holds is taken as held (it may be newer than the row).
        if !found.created, let cached = cachedConversation(key: found.key) { return (cached, false) }
        let record = ConversationRecord(
            id: RecordID.format(RecordID.conversation, found.key), kind: .direct, title: nil,
            participants: participants, createdAt: found.createdAt, lastActivity: found.lastActivity)
        // Kept from the commit on, like a conversation read: the first sends need no round trip to find it.
        conversationsInTransaction[found.key] = record
        return (record, found.created)
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
