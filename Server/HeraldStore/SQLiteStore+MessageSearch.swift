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
            guard try isParticipant(user: user, rowid: conversationRowID) else { return [] }
            return try connection.query(Self.searchQuery, .text(Self.matchExpression(conversation: conversationRowID, words: words)), .int(cursor), .int(Int64(limit)), row: Self.messageRecord)
        }
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
