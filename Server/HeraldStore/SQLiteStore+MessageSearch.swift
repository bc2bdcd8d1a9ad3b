import HeraldStoreProtocol

extension SQLiteStore {
    // MARK: - Search within a conversation

    /// How many new messages a commit waits for before it indexes them: FTS5 writes its buffered words out as a new
    /// segment at the end of every statement that wrote it (and merges segments as they pile up), about 170,000
    /// instructions each, so indexing every send as it commits made a send cost 1.8 times as much. Messages not
    /// indexed yet are searched directly (``searchMessages(conversation:user:words:before:limit:)``).
    static let searchIndexBatch = 256

    public func searchMessages(conversation: String, user: String, words: SearchWords, before: String?, limit: Int) throws -> [MessageRecord] {
        guard !words.isEmpty, limit > 0, let conversationRowID = RecordID.parse(RecordID.conversation, conversation) else { return [] }
        var cursor = Int64.max
        if let before {
            guard let messageRowID = RecordID.parse(RecordID.message, before) else { return [] }
            cursor = messageRowID
        }
        return try snapshot {
            guard try isParticipant(user: user, rowid: conversationRowID) else { return [] }
            let indexedThrough = try connection.scalar("SELECT indexed_through FROM message_search_progress") ?? 0
            // The newest messages, not indexed yet (at most about a batch of them in all), are read and matched here:
            // every one of them is newer than every indexed one.
            let recent = try connection.query(
                """
                SELECT \(Self.messageColumns) FROM messages
                WHERE conversation_id = ? AND id > ? AND id < ? AND unsent_at IS NULL ORDER BY id DESC
                """, .int(conversationRowID), .int(indexedThrough), .int(cursor), row: Self.messageRecord
            ).filter { words.match($0.text ?? "") }
            if recent.count >= limit { return Array(recent.prefix(limit)) }
            let indexed = try connection.query(
                Self.searchQuery, .text(Self.matchExpression(conversation: conversationRowID, words: words)),
                .int(min(cursor, indexedThrough + 1)), .int(Int64(limit - recent.count)), row: Self.messageRecord)
            return recent + indexed
        }
    }

    /// Indexes the messages inserted since the last time, as they stand now (an edit or unsend before this is simply
    /// what is indexed), in one statement: FTS5 writes their words out once. Inside a write transaction only; a commit
    /// calls it once ``searchIndexBatch`` messages wait.
    func indexNewMessages() throws(StoreError) {
        _ = try connection.execute(
            """
            INSERT INTO message_search (rowid, conversation_id, text)
            SELECT id, conversation_id, text FROM messages WHERE id > (SELECT indexed_through FROM message_search_progress)
            """)
        _ = try connection.execute("UPDATE message_search_progress SET indexed_through = (SELECT coalesce(max(id), 0) FROM messages)")
        messagesSinceIndexed = 0
    }

    /// The conversation's token and the words, each in its own column, so the index itself intersects them.
    static func matchExpression(conversation: Int64, words: SearchWords) -> String {
        "{conversation_id} : \"\(conversation)\" AND {text} : (\(words.fts5Expression))"
    }

    /// Newest first and paged inside the FTS5 index (its rowid is the message id): only the page's rows are read from
    /// `messages`. An unsent message has no text, so no words in the index; `unsent_at IS NULL` says so again (M2).
    static let searchQuery = """
        SELECT \(messageColumns) FROM messages
        WHERE id IN (
            SELECT rowid FROM message_search WHERE message_search MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?
        ) AND unsent_at IS NULL
        ORDER BY id DESC
        """
}
