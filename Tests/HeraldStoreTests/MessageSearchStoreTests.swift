import Foundation
@testable import HeraldStore
@testable import HeraldStorePostgres
import HeraldTestSupport
import Testing

/// Search within one conversation's history, the same on both stores: every word as a word or its start, newest first,
/// paged by the last hit; the text as it stands (M1), never an unsent message (M2), only for participants (R5).
@Suite("Store: search within a conversation")
struct MessageSearchStoreTests {
    @discardableResult
    func say(_ text: String, from sender: String, in conversation: String, store: any SyncStore) throws -> MessageRecord {
        try store.insertMessage(
            conversation: conversation, sender: sender, clientMessageId: UUID().uuidString, kind: .text, text: text, imageURL: nil, now: 1_000
        ).message
    }

    /// SQLite indexes new messages in batches and searches the newest ones directly: index what is there now, so a
    /// test covers both (PostgreSQL indexes every row as it is written).
    func indexNow(_ store: any SyncStore) throws {
        if let sqlite = store as? SQLiteStore { try sqlite.transaction { try sqlite.indexNewMessages() } }
    }

    func search(_ text: String, in conversation: String, as user: String = "alice", before: String? = nil, limit: Int = 20, store: any SyncStore) throws -> [String] {
        try store.searchMessages(conversation: conversation, user: user, words: SearchWords(text), before: before, limit: limit).map(\.id)
    }

    @Test("Every word must be in the message, as a word or the start of one, in any case; newest first", arguments: StoreBackend.allCases)
    func words(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let lunch = try say("Lunch at the Harbour café?", from: "alice", in: c.id, store: store)
        try indexNow(store)
        let later = try say("harbour is closed, lunch later", from: "bob", in: c.id, store: store)
        try say("nothing to see here", from: "bob", in: c.id, store: store)
        let cjk = try say("東京 で 会いましょう", from: "bob", in: c.id, store: store)
        let hindi = try say("नमस्ते दुनिया", from: "bob", in: c.id, store: store)
        #expect(try search("harbour", in: c.id, store: store) == [later.id, lunch.id])
        #expect(try search("HARB lun", in: c.id, store: store) == [later.id, lunch.id], "prefixes, case folded")
        #expect(try search("lunch café", in: c.id, store: store) == [lunch.id])
        #expect(try search("closed harbour", in: c.id, store: store) == [later.id], "words in any order")
        #expect(try search("東京", in: c.id, store: store) == [cjk.id])
        #expect(try search("नमस्", in: c.id, store: store) == [hindi.id], "a word with vowel marks is one word, found by its start")
        #expect(try search("arbour", in: c.id, store: store).isEmpty, "a word's middle is not its start")
        #expect(try search("harbour pizza", in: c.id, store: store).isEmpty, "every word must be there")
        #expect(try search("  ?! ", in: c.id, store: store).isEmpty, "no words, nothing found")
        #expect(try search("\"harbour\"* :^ -()", in: c.id, store: store) == [later.id, lunch.id], "query syntax is only separators")
        let returned = try store.searchMessages(conversation: c.id, user: "bob", words: SearchWords("café"), before: nil, limit: 5)
        #expect(returned.first?.text == "Lunch at the Harbour café?")
        #expect(returned.first?.sender == "alice")
        #expect(returned.first?.createdAt == 1_000)
    }

    @Test("Only the conversation searched is searched", arguments: StoreBackend.allCases)
    func oneConversation(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (dm, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let group = try store.createGroup(title: "Team", creator: "alice", members: ["bob", "carol"], now: 1)
        let inDM = try say("the deploy is done", from: "bob", in: dm.id, store: store)
        let inGroup = try say("deploy tomorrow", from: "carol", in: group.id, store: store)
        #expect(try search("deploy", in: dm.id, store: store) == [inDM.id])
        #expect(try search("deploy", in: group.id, store: store) == [inGroup.id])
        let conversationNumber = try #require(RecordID.parse(RecordID.conversation, dm.id))
        #expect(try search("\(conversationNumber)", in: dm.id, store: store).isEmpty, "the conversation's own token is not text")
    }

    @Test("M1: an edited message is found by its new words only; M2: an unsent message never", arguments: StoreBackend.allCases)
    func editAndUnsend(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let typo = try say("meet at the statoin", from: "alice", in: c.id, store: store)
        let secret = try say("the password is swordfish", from: "alice", in: c.id, store: store)
        #expect(try search("statoin", in: c.id, store: store) == [typo.id])
        try indexNow(store)
        #expect(try search("statoin", in: c.id, store: store) == [typo.id])
        _ = try store.transaction { try store.editMessage(id: typo.id, text: "meet at the station", maxEdits: 5, now: 2_000) }
        #expect(try search("statoin", in: c.id, store: store).isEmpty, "M1: the old words are gone")
        #expect(try search("station", in: c.id, store: store) == [typo.id], "M1: the edited text is what is found")
        #expect(try search("meet", in: c.id, store: store) == [typo.id])
        #expect(try search("swordfish", in: c.id, store: store) == [secret.id])
        _ = try store.transaction { try store.unsendMessage(id: secret.id, now: 3_000) }
        #expect(try search("swordfish", in: c.id, store: store).isEmpty, "M2: an unsent message is never found")
        #expect(try search("the", in: c.id, store: store) == [typo.id])
    }

    @Test("R5: only a participant finds anything; a member who left finds nothing", arguments: StoreBackend.allCases)
    func participantsOnly(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (dm, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let group = try store.createGroup(title: "Team", creator: "alice", members: ["bob", "carol"], now: 1)
        let private1 = try say("private plans", from: "alice", in: dm.id, store: store)
        let plans = try say("group plans", from: "alice", in: group.id, store: store)
        try indexNow(store)
        #expect(try search("plans", in: dm.id, as: "bob", store: store) == [private1.id])
        #expect(try search("plans", in: dm.id, as: "carol", store: store).isEmpty, "R5: carol is not in the DM")
        #expect(try search("plans", in: dm.id, as: "mallory", store: store).isEmpty, "R5: an unknown user finds nothing")
        #expect(try search("plans", in: group.id, as: "carol", store: store) == [plans.id])
        try store.removeParticipant(user: "carol", conversation: group.id)
        #expect(try search("plans", in: group.id, as: "carol", store: store).isEmpty, "R5: a member who left finds nothing")
        #expect(try search("plans", in: "c999999", store: store).isEmpty)
        #expect(try search("plans", in: "nonsense", store: store).isEmpty)
    }

    @Test("Pages: newest first, each strictly older than the previous page's last hit, to the oldest", arguments: StoreBackend.allCases)
    func paging(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        var hits: [String] = []
        for index in 0..<25 {
            if index == 12 { try indexNow(store) }
            let message = try say("ticket \(index)", from: index.isMultiple(of: 2) ? "alice" : "bob", in: c.id, store: store)
            hits.append(message.id)
            try say("noise \(index)", from: "bob", in: c.id, store: store)
        }
        var pages: [[String]] = []
        var before: String?
        repeat {
            let page = try search("ticket", in: c.id, before: before, limit: 10, store: store)
            if page.isEmpty { break }
            pages.append(page)
            before = page.last
        } while pages.count < 10
        #expect(pages.map(\.count) == [10, 10, 5])
        #expect(pages.flatMap { $0 } == hits.reversed(), "every hit once, newest first")
        #expect(try search("ticket", in: c.id, before: hits[0], store: store).isEmpty, "nothing is older than the oldest")
    }

    @Test("A message sent and edited inside one transaction is searched as it stands", arguments: StoreBackend.allCases)
    func insideTransaction(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        try store.transaction {
            let message = try say("fresh words", from: "alice", in: c.id, store: store)
            #expect(try search("fresh", in: c.id, store: store) == [message.id])
            _ = try store.editMessage(id: message.id, text: "newer words", maxEdits: 5, now: 2)
            #expect(try search("fresh", in: c.id, store: store).isEmpty)
            #expect(try search("newer", in: c.id, store: store) == [message.id])
        }
    }
}

/// The search reads an index, never every message: the plans say so.
@Suite("Store: search within a conversation is indexed")
struct MessageSearchIndexTests {
    @Test("SQLite: the query is answered by the FTS5 index, paged inside it, and messages are read by rowid only")
    func sqlitePlan() throws {
        let (_, store) = try sqliteStoreWithUsers()
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        _ = try send(50, from: "alice", in: c.id, store: store)
        let plan = try store.connection.query(
            "EXPLAIN QUERY PLAN " + SQLiteStore.searchQuery, .text(SQLiteStore.matchExpression(conversation: 1, words: SearchWords("message"))),
            .int(Int64.max), .int(20)
        ) { row in row.text(3) }
        #expect(plan.contains { $0.contains("VIRTUAL TABLE INDEX") && $0.contains("M") }, "the MATCH goes to FTS5: \(plan)")
        #expect(plan.contains { $0.hasPrefix("SEARCH messages USING INTEGER PRIMARY KEY") }, "messages by rowid: \(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN messages") }, "no scan of messages: \(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "no sort outside the index: \(plan)")
    }

    @Test("SQLite: a commit indexes the new messages once a batch of them waits; until then they are searched directly")
    func sqliteIndexInBatches() throws {
        let (_, store) = try sqliteStoreWithUsers()
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        func indexedThrough() throws -> Int64? { try store.connection.scalar("SELECT indexed_through FROM message_search_progress") }
        let first = try store.insertMessage(
            conversation: c.id, sender: "alice", clientMessageId: "first", kind: .text, text: "needle one", imageURL: nil, now: 2).message
        #expect(try indexedThrough() == 0, "one message does not make a batch")
        #expect(try store.searchMessages(conversation: c.id, user: "bob", words: SearchWords("needle"), before: nil, limit: 5).map(\.id) == [first.id])
        _ = try send(SQLiteStore.searchIndexBatch - 1, from: "bob", in: c.id, store: store)
        let last = try #require(try store.history(conversation: c.id, before: nil, limit: 1).first)
        #expect(try indexedThrough() == RecordID.parse(RecordID.message, last.id), "the commit that completed the batch indexed it")
        #expect(try store.searchMessages(conversation: c.id, user: "bob", words: SearchWords("needle"), before: nil, limit: 5).map(\.id) == [first.id])
        #expect(try store.searchMessages(conversation: c.id, user: "bob", words: SearchWords("message"), before: nil, limit: 500).count
            == SQLiteStore.searchIndexBatch - 1)
    }

    @Test("SQLite: new messages are indexed as they stand; the index stays consistent with them")
    func sqliteIndexAtCommit() throws {
        let (_, store) = try sqliteStoreWithUsers()
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        func found(_ text: String) throws -> [String] {
            try store.searchMessages(conversation: c.id, user: "bob", words: SearchWords(text), before: nil, limit: 5).map(\.id)
        }
        let early = try store.insertMessage(
            conversation: c.id, sender: "alice", clientMessageId: "a", kind: .text, text: "first draft", imageURL: nil, now: 2).message
        let (edited, unsent) = try store.transaction {
            let edited = try store.insertMessage(
                conversation: c.id, sender: "alice", clientMessageId: "b", kind: .text, text: "typo wrods", imageURL: nil, now: 3).message
            let unsent = try store.insertMessage(
                conversation: c.id, sender: "alice", clientMessageId: "c", kind: .text, text: "secret plans", imageURL: nil, now: 4).message
            // Changed before they were indexed, and the indexed one changed in the same transaction.
            _ = try store.editMessage(id: edited.id, text: "typo words", maxEdits: 5, now: 5)
            _ = try store.unsendMessage(id: unsent.id, now: 6)
            _ = try store.editMessage(id: early.id, text: "final version", maxEdits: 5, now: 7)
            return (edited, unsent)
        }
        for indexed in [false, true] {
            if indexed { try store.transaction { try store.indexNewMessages() } }
            #expect(try found("words") == [edited.id], "indexed: \(indexed)")
            #expect(try found("wrods").isEmpty)
            #expect(try found("secret").isEmpty)
            #expect(try found("final") == [early.id])
            #expect(try found("draft").isEmpty)
        }
        _ = try store.transaction { try store.unsendMessage(id: edited.id, now: 8) }
        #expect(try found("words").isEmpty)
        // `rank = 1`: the index is checked against the messages' text itself.
        _ = try store.connection.execute("INSERT INTO message_search (message_search, rank) VALUES ('integrity-check', 1)")
        #expect(try store.connection.scalar("SELECT indexed_through FROM message_search_progress") == RecordID.parse(RecordID.message, unsent.id))
    }

    @Test("SQLite: the migration indexes the messages that existed before it")
    func sqliteMigrationIndexesExisting() throws {
        let (_, store) = try sqliteStoreWithUsers()
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        try store.connection.executeScript(
            """
            DROP TRIGGER message_search_delete; DROP TRIGGER message_search_update;
            DROP TABLE message_search; DROP TABLE message_search_progress;
            """)
        // As a build without search stored it.
        let conversation = try #require(RecordID.parse(RecordID.conversation, c.id))
        _ = try store.connection.execute(
            "INSERT INTO messages (conversation_id, sender_id, client_message_id, kind, text, created_at) VALUES (?, 'alice', 'old', 0, 'written before search', 2)",
            .int(conversation))
        let old = RecordID.format(RecordID.message, store.connection.lastInsertRowID)
        try store.connection.executeScript(Schema.messageSearchMigration)
        #expect(try store.searchMessages(conversation: c.id, user: "bob", words: SearchWords("before"), before: nil, limit: 5).map(\.id) == [old])
        _ = try store.connection.execute("INSERT INTO message_search (message_search, rank) VALUES ('integrity-check', 1)")
        let new = try store.insertMessage(
            conversation: c.id, sender: "bob", clientMessageId: "new", kind: .text, text: "written after", imageURL: nil, now: 3).message
        #expect(try store.searchMessages(conversation: c.id, user: "bob", words: SearchWords("written"), before: nil, limit: 5).map(\.id) == [new.id, old])
    }

    @Test(
        "PostgreSQL: in a long conversation the words are looked up in the GIN index, not by reading its messages",
        .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
    func postgresPlan() throws {
        let (_, store) = try postgresStoreWithUsers()
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let conversation = try #require(RecordID.parse(RecordID.conversation, c.id))
        // 20,000 ordinary messages and a rare word: reading them all would be the alternative to the index.
        try store.connection.executeScript(
            """
            INSERT INTO messages (conversation_id, sender_id, client_message_id, kind, text, created_at)
            SELECT \(conversation), 'alice', 'bulk' || n, 0, 'ordinary chatter number ' || n, n FROM generate_series(1, 20000) n;
            INSERT INTO messages (conversation_id, sender_id, client_message_id, kind, text, created_at)
            VALUES (\(conversation), 'bob', 'rare', 0, 'the zeppelin lands at noon', 20001);
            ANALYZE messages;
            """)
        let plan = try store.connection.query(
            "EXPLAIN " + PostgresStore.searchQuery, .int(conversation), .int(Int64.max), .text(SearchWords("zeppelin").tsqueryExpression),
            .text("alice"), .int(20)
        ) { row in row.text(0) }.joined(separator: "\n")
        #expect(plan.contains("messages_search"), "the GIN index answers the words:\n\(plan)")
        #expect(!plan.contains("Seq Scan on messages"), "no scan of messages:\n\(plan)")
        #expect(try store.searchMessages(conversation: c.id, user: "alice", words: SearchWords("zepp"), before: nil, limit: 5).map(\.text) == ["the zeppelin lands at noon"])
    }
}
