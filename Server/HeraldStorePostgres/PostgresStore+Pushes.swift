import HeraldStore

extension PostgresStore {
    // MARK: - Push outbox (P)

    public func enqueuePush(
        user: String, device: String, conversation: String, message: String, sender: String,
        preview: String, url: String, now: Int64
    ) throws -> Int64 {
        try insertPush(
            user: user, device: device, node: nil, deviceKey: nil, conversation: conversation, message: message, sender: sender,
            preview: preview, url: url, now: now)
    }

    /// The outbox row of one push; `node` and `deviceKey` say which node's device got it (nil on a single node).
    func insertPush(
        user: String, device: String, node: String?, deviceKey: Int64?, conversation: String, message: String, sender: String,
        preview: String, url: String, now: Int64
    ) throws -> Int64 {
        guard let conversationKey = RecordID.parse(RecordID.conversation, conversation) else {
            throw StoreError(kind: .notFound, message: "unknown conversation \(conversation)")
        }
        guard let messageKey = RecordID.parse(RecordID.message, message) else {
            throw StoreError(kind: .notFound, message: "unknown message \(message)")
        }
        guard
            let key = try connection.scalar(
                """
                INSERT INTO pushes (user_id, device, conversation_id, message_id, sender_id, preview, url, created_at, node_id, device_key)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id
                """,
                .text(user), .text(device), .int(conversationKey), .int(messageKey), .text(sender), .text(preview), .text(url), .int(now),
                .optionalText(node), deviceKey.map(PGValue.int) ?? .null(.int8))
        else { throw StoreError(kind: .other, message: "INSERT … RETURNING returned no row") }
        return key
    }

    public func withdrawPushes(message: String, user: String, now: Int64) throws -> [PushRecord] {
        guard let messageKey = RecordID.parse(RecordID.message, message) else { return [] }
        // One statement: the rows it changes are exactly the ones withdrawn now (a second call finds none). A push
        // another node delivered is withdrawn there too: that node hears "clear <node> <device> <c> <m>" through this
        // transaction's wake-up (P5 across nodes); this node's own devices are cleared by the caller.
        return try transaction {
            let withdrawn = try connection.query(
                """
                UPDATE pushes SET withdrawn_at = $3 WHERE message_id = $1 AND user_id = $2 AND withdrawn_at IS NULL
                RETURNING \(Self.pushColumns), node_id, device_key
                """, .int(messageKey), .text(user), .int(now)
            ) { row in (record: Self.pushRecord(row), node: row.optionalText(10), deviceKey: row.optionalInt(11)) }
            for push in withdrawn {
                guard let node = push.node, let deviceKey = push.deviceKey, node != (clusterNode ?? ""),
                    let conversationKey = RecordID.parse(RecordID.conversation, push.record.conversation)
                else { continue }
                try signal("clear \(node) \(deviceKey) \(conversationKey) \(messageKey)")
            }
            return withdrawn.map(\.record).sorted { $0.id < $1.id }
        }
    }

    public func pushes(user: String) throws -> [PushRecord] {
        try connection.query(
            "SELECT \(Self.pushColumns) FROM pushes WHERE user_id = $1 AND withdrawn_at IS NULL ORDER BY id", .text(user), row: Self.pushRecord)
    }

    @discardableResult
    public func prunePushes(olderThan cutoff: Int64) throws -> Int {
        try transaction {
            try connection.execute("DELETE FROM published_claims WHERE claimed_at < $1", .int(cutoff))
            try connection.execute("DELETE FROM push_bell_alerts WHERE created_at < $1", .int(cutoff))
            return try connection.execute("DELETE FROM pushes WHERE created_at < $1", .int(cutoff))
        }
    }

    static let pushColumns = "id, user_id, device, conversation_id, message_id, sender_id, preview, url, created_at, withdrawn_at"

    static func pushRecord(_ row: PGRow) -> PushRecord {
        PushRecord(
            id: row.int(0), user: row.text(1), device: row.text(2), conversation: RecordID.format(RecordID.conversation, row.int(3)),
            message: RecordID.format(RecordID.message, row.int(4)), sender: row.text(5), preview: row.text(6), url: row.text(7),
            createdAt: row.int(8), withdrawnAt: row.optionalInt(9))
    }
}
