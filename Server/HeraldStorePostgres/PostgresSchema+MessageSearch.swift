extension PostgresSchema {
    /// Search within a conversation (`PostgresStore+MessageSearch.swift`): a GIN index on the words of each message's
    /// text. An expression index, so the table keeps its columns and every writer of `messages` (the store's flush,
    /// `herald_send_message`, an edit, an unsend) keeps it right by writing the row: an edit (M1) indexes the new words,
    /// an unsent message (M2, text NULL) has none. The `simple` configuration splits words and lowercases them without
    /// any language's stemming or stop words, so it serves every language alike (and as the SQLite store's tokenizer
    /// does). Creating the index reads every existing message. `fastupdate = off`: with GIN's pending list, new entries
    /// wait in a list that the insert which fills it (4 MB) merges into the index, a stall of that one transaction and of
    /// every batch behind it on the sync thread; written as each message is stored, the cost is small and even.
    static let messageSearchMigration = """
        CREATE INDEX messages_search ON messages USING gin (\(messageSearchVector)) WITH (fastupdate = off);
        """

    /// The indexed expression; a query must use it exactly for the planner to use the index.
    static let messageSearchVector = "to_tsvector('simple'::regconfig, coalesce(text, ''))"
}
