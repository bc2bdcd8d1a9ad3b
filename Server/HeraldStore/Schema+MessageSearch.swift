extension Schema {
    /// Search within a conversation (`SQLiteStore+MessageSearch.swift`): an FTS5 index over the messages table (external
    /// content, so no text is stored twice). The conversation is indexed too, as one token per row, so a search reads
    /// only that conversation's postings and pages by rowid inside the index.
    ///
    /// New messages are indexed in batches (``SQLiteStore/indexNewMessages()``, at the commit that completes a batch of
    /// ``SQLiteStore/searchIndexBatch``), from `message_search_progress.indexed_through` on; newer ones are searched
    /// directly. FTS5 writes a segment at the end of every statement that wrote it, so an insert trigger made every send
    /// write one (a send cost 1.8 times the instructions). Messages already indexed are kept right by triggers: an edit
    /// (M1) replaces the old words with the new, an unsend (M2, text set to NULL) removes them; a message changed before
    /// it was indexed is indexed as it stands.
    ///
    /// `remove_diacritics 0`: accents count, as in the PostgreSQL store's `simple` configuration, so both stores find the
    /// same messages; `categories` adds combining marks to the token characters, so a word of a script that writes
    /// vowels as marks (Devanagari, Thai) is one token, as ``SearchWords`` and PostgreSQL's parser take it.
    /// `columnsize = 0`: no per-message size row, which only ranking would read (hits are ordered by time). Existing
    /// messages are indexed by the `rebuild` at the end.
    static let messageSearchMigration = """
        CREATE VIRTUAL TABLE message_search USING fts5(
            conversation_id, text, content = 'messages', content_rowid = 'id', columnsize = 0,
            tokenize = "unicode61 remove_diacritics 0 categories 'L* N* Co M*'"
        );
        CREATE TABLE message_search_progress (indexed_through INTEGER NOT NULL);
        CREATE TRIGGER message_search_delete AFTER DELETE ON messages
        WHEN old.id <= (SELECT indexed_through FROM message_search_progress) BEGIN
            INSERT INTO message_search (message_search, rowid, conversation_id, text)
            VALUES ('delete', old.id, old.conversation_id, old.text);
        END;
        CREATE TRIGGER message_search_update AFTER UPDATE OF text ON messages
        WHEN old.id <= (SELECT indexed_through FROM message_search_progress) BEGIN
            INSERT INTO message_search (message_search, rowid, conversation_id, text)
            VALUES ('delete', old.id, old.conversation_id, old.text);
            INSERT INTO message_search (rowid, conversation_id, text) VALUES (new.id, new.conversation_id, new.text);
        END;
        INSERT INTO message_search (message_search) VALUES ('rebuild');
        INSERT INTO message_search_progress (indexed_through) SELECT coalesce(max(id), 0) FROM messages;
        """
}
