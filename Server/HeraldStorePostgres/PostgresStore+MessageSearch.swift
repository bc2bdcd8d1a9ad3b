import HeraldStore

extension PostgresStore {
    // MARK: - Search within a conversation

    public func searchMessages(conversation: String, user: String, words: SearchWords, before: String?, limit: Int) throws -> [MessageRecord] {
        guard !words.isEmpty, limit > 0, let key = RecordID.parse(RecordID.conversation, conversation) else { return [] }
        var cursor = Int64.max
        if let before {
            guard let messageKey = RecordID.parse(RecordID.message, before) else { return [] }
            cursor = messageKey
        }
        // The batch's own messages first: a message sent in this very batch is found.
        try writePending()
        return try connection.query(
            Self.searchQuery, .int(key), .int(cursor), .text(words.tsqueryExpression), .text(user), .int(Int64(limit))
        ) { row in Self.messageRecord(row, from: 0) }
    }

    /// One statement: the words through the GIN index (the indexed expression written exactly as indexed), the
    /// participant check (R5) beside them. An unsent message has no text and so no words; `unsent_at IS NULL` says so
    /// again (M2).
    ///
    /// The hits are gathered first (a materialized CTE), then the newest taken: with `ORDER BY id DESC LIMIT` on the
    /// table itself the planner walks the primary key backwards and tests every message of the conversation against
    /// the words (it cannot tell how rare a prefix is), which for a rare word reads the whole history.
    static let searchQuery = """
        WITH hits AS MATERIALIZED (
            SELECT \(messageColumns) FROM messages
            WHERE conversation_id = $1 AND id < $2 AND unsent_at IS NULL
              AND \(PostgresSchema.messageSearchVector) @@ to_tsquery('simple'::regconfig, $3)
              AND EXISTS (SELECT 1 FROM participants WHERE conversation_id = $1 AND user_id = $4)
        )
        SELECT * FROM hits ORDER BY id DESC LIMIT $5
        """
}
