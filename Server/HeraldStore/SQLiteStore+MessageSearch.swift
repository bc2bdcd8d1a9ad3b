import HeraldStoreProtocol

extension SQLiteStore {
    // MARK: - Search within a conversation

    public func searchMessages(conversation: String, user: String, words: SearchWords, before: String?, limit: Int) throws -> [MessageRecord] {
        guard !words.isEmpty, limit > 0, let conversationRowID = RecordID.parse(RecordID.conversation, conversation) else { return [] }
        var cursor = Int64.max
        if let before {
            guard let messageRowID = RecordID.parse(RecordID.message, before) else { return [] }
            cursor = messageRowID
        }
        return try snapshot {
            // Messages of this very transaction are found too (they are indexed only as it commits).
            if messagesToIndex { try indexNewMessages() }
            guard try isParticipant(user: user, rowid: conversationRowID) else { return [] }
            return try connection.query(Self.searchQuery, .text(Self.matchExpression(conversation: conversationRowID, words: words)), .int(cursor), .int(Int64(limit)), row: Self.messageRecord)
        }
    }

    /// Indexes the messages inserted since the last time, as they stand now (an edit or unsend before this is simply
    /// what is indexed), in one statement: FTS5 buffers their words and writes them out once, as the transaction
    /// commits. Inside a write transaction only.
    func indexNewMessages() throws(StoreError) {
        _ = try connection.execute(
            """
            INSERT INTO message_search (rowid, conversation_id, text)
            SELECT id, conversation_id, text FROM messages WHERE id > (SELECT indexed_through FROM message_search_progress)
            """)
        _ = try connection.execute("UPDATE message_search_progress SET indexed_through = (SELECT coalesce(max(id), 0) FROM messages)")
        messagesToIndex = false
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
