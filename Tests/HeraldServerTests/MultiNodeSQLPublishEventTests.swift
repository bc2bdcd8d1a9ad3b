import Foundation
import HeraldProtocol
import HeraldRules
@testable import HeraldServer
import HeraldStorePostgres
import HeraldStoreProtocol
@testable import HeraldSync
import HeraldTestSupport
import Testing

/// One message event whichever way a message is sent: `herald_send_message` (an application publishing from its own
/// PostgreSQL transaction) writes in SQL the bytes a send over /sync writes with `MessageEvent` (R1, N2), and `history`
/// reads both messages as their live events carried them.
@Suite("PostgreSQL publish: herald_send_message's event is a /sync send's, byte for byte (a real node)", .serialized,
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct MultiNodeSQLPublishEventTests {

    /// A message as both paths take it: the conversation (`group` or `direct`), its text and image.
    struct Message: CustomStringConvertible {
        var conversation: String
        var text: String?
        var imageURL: String?
        var description: String { "\(conversation): \(text.map { "\($0.debugDescription)" } ?? "no text") \(imageURL ?? "")" }
    }

    /// Every kind of message, and every case of N2's rule: one, several, repeated and no mentions, the sender's own, a
    /// user who is not a participant, an unknown id, an address, a sentence's full stop, escapes and text beyond ASCII.
    static let messages: [Message] = [
        Message(conversation: "group", text: "hello everyone"),
        Message(conversation: "group", imageURL: "https://img.example/cat.png"),
        Message(conversation: "group", text: "look at this, @bob", imageURL: "https://img.example/dog.png?size=2&x=%20"),
        Message(conversation: "group", text: "", imageURL: "https://img.example/empty-caption.png"),
        Message(conversation: "group", text: "@bob can you look?"),
        Message(conversation: "group", text: "@carol and @bob, thanks @bob. cc @alice @carol."),
        Message(conversation: "group", text: "mail alice@example.org or bob@example.org, ping @ bob or x.@bob"),
        Message(conversation: "group", text: "@dave is not here, @zed does not exist, @bobby is not @bob's"),
        Message(conversation: "group", text: "héllo 👋 日本@bob «@carol» \"quoted\" back\\slash\ttab\nline\u{01}\u{1F} / end"),
        Message(conversation: "direct", text: "@bob in a direct conversation mentions nobody"),
        Message(conversation: "direct", text: "ok", imageURL: "https://img.example/direct.png"),
    ]

    @Test("R1, N2: for every kind of message, the live event a device gets for herald_send_message equals a /sync send's (seq, id, clientMessageId and createdAt aside), and history reads both as their events did")
    func publishedEventEqualsSentEvent() throws {
        let (url, servers) = try startNodes(1)
        defer { servers.forEach { $0.stop() } }
        let port = servers[0].port
        let tokens = try ["alice", "bob", "carol", "dave"].map { try ServerHarness.token($0, store: url) }
        let alice = try SyncTestClient.synced(port: port, token: tokens[0], device: "alice-laptop", scene: #""scene":"list""#)
        let bob = try SyncTestClient.synced(port: port, token: tokens[1], device: "bob-laptop", scene: #""scene":"list""#)
        let conversations = [
            "group": try #require(try alice.request(#"{"type":"group","title":"Launch","members":["bob","carol"]}"#).conversation?.id),
            "direct": try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id),
        ]
        for (index, message) in Self.messages.enumerated() {
            let conversation = try #require(conversations[message.conversation])
            try alice.request(try Self.sendRequest(message, conversation: conversation, clientMessageId: "sent-\(index)"))
            let sent = try Self.nextMessageEvent(bob)
            _ = try PostgresCluster.run(Self.publishCall(message, conversation: conversation, clientMessageId: "published-\(index)"), database: url)
            let published = try Self.nextMessageEvent(bob)

            #expect(Self.normalized(published.bytes) == Self.normalized(sent.bytes), "\(message)")
            #expect(Self.normalized(published.frame) == Self.normalized(sent.frame), "\(message)")
            #expect(published.frame.message?.clientMessageId == "published-\(index)")
            let history = try #require(try bob.request(#"{"type":"history","conversation":"\#(conversation)","limit":2}"#).messages)
            #expect(history == [published.frame.message, sent.frame.message].compactMap { $0 }, "newest first: \(message)")
        }
        // The mentions were there to compare: the rule's cases are not all "none".
        let group = try #require(conversations["group"])
        let history = try #require(try bob.request(#"{"type":"history","conversation":"\#(group)","limit":50}"#).messages)
        #expect(Set(history.compactMap(\.mentions)) == [["bob"], ["carol", "bob"], ["bob", "carol"]])
    }

    @Test("N2: herald_mentions finds the mentions MentionParser finds, for seeded random texts of ids, @, dots, id characters and text beyond ASCII")
    func mentionsRuleMatchesSwift() throws {
        let url = try PostgresCluster.newDatabase()
        _ = try PostgresStore(url: url)  // its migrations create herald_mentions
        let candidates = ["bob", "carol", "d.e", "x@y", "a-b_c", "Bob2", "é", "bob.smith"]
        let pieces = ["@", "@", "@", ".", "..", " ", ",", "b", "o", "c", "a", "r", "l", "-", "_", "B", "2", "Z", "9", "é", "日", "\n", "ß", "Å", "'", "\\", "\""]
            + candidates + candidates.map { "@" + $0 } + candidates.map { "@" + $0 + "." }
        var generator = SeededGenerator(seed: 0x4D45_4E54)
        let texts = (0..<4_000).map { _ in (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined() }
        let found = try Self.sqlMentions(texts, candidates: candidates, database: url)
        var mentioning = 0
        for (text, sql) in zip(texts, found) {
            let swift = MentionParser.mentions(in: text, participants: candidates)
            #expect(sql == swift, "\(text.debugDescription)")
            if !swift.isEmpty { mentioning += 1 }
        }
        #expect(found.count == texts.count)
        #expect(mentioning > 500, "enough texts mention someone to test the rule")
    }

    @Test("R1, N2: the event herald_send_message stores is the bytes MessageEvent encodes for the message it stored, sender names with escapes included")
    func storedBodyEqualsSwiftEncoding() throws {
        let url = try PostgresCluster.newDatabase()
        let store = try PostgresStore(url: url)
        for (id, name) in [("alice", "Ålice \"the\" \\ admin\t👋"), ("bob", "Bob"), ("carol", "Carol"), ("dave", "Dave")] {
            try store.upsertUser(id: id, name: name)
        }
        let conversations = [
            "group": try store.createGroup(title: "Launch", creator: "alice", members: ["bob", "carol"], now: 1).id,
            "direct": try store.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation.id,
        ]
        for (index, message) in Self.messages.enumerated() {
            let conversation = try #require(conversations[message.conversation])
            let answer = try PostgresCluster.run(Self.publishCall(message, conversation: conversation, clientMessageId: "published-\(index)"), database: url)
            let id = try #require(answer.first?.first ?? nil)
            let record = try #require(try store.message(id: id))
            let stored = try #require(try store.events(user: "bob", after: Int64(index), limit: 1).first)
            let name = try store.user(id: record.sender)?.name ?? record.sender
            let swift = MessageEvent.body(MessageEvent.info(of: record, senderName: name, in: try #require(try store.conversation(id: conversation))))
            #expect(String(decoding: stored.payload, as: UTF8.self) == String(decoding: swift, as: UTF8.self), "\(message)")
        }
    }

    // MARK: - Helpers

    /// The /sync `send` of `message`.
    static func sendRequest(_ message: Message, conversation: String, clientMessageId: String) throws -> String {
        struct Send: Encodable {
            var type = "send"
            var conversation: String
            var clientMessageId: String
            var kind: String
            var text: String?
            var imageURL: String?
        }
        let send = Send(
            conversation: conversation, clientMessageId: clientMessageId, kind: message.imageURL == nil ? "text" : "image", text: message.text,
            imageURL: message.imageURL)
        return String(decoding: try JSONEncoder().encode(send), as: UTF8.self)
    }

    /// The application's call publishing `message` (strings as SQL literals: quotes doubled, nothing else escaped).
    static func publishCall(_ message: Message, conversation: String, clientMessageId: String) -> String {
        func literal(_ value: String?) -> String { value.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL" }
        return """
            SELECT * FROM herald_send_message(conversation => \(literal(conversation)), sender => 'alice',
                client_message_id => \(literal(clientMessageId)), message_text => \(literal(message.text)), image_url => \(literal(message.imageURL)))
            """
    }

    /// The next `message` event `client` receives, as its bytes and decoded.
    static func nextMessageEvent(_ client: SyncTestClient) throws -> (bytes: [UInt8], frame: EventFrame) {
        while true {
            let payload = try client.raw.readMessage(timeoutMilliseconds: 5_000).payload
            if case .success(.event(let event)) = ServerFrame.decode(payload), event.event == .message { return (payload, event) }
        }
    }

    /// The frame's bytes with the values that differ between any two messages replaced by their names.
    static func normalized(_ bytes: [UInt8]) -> String {
        var text = String(decoding: bytes, as: UTF8.self)
        for (pattern, name) in [
            (#""seq":[0-9]+"#, #""seq":SEQ"#), (#""id":"m[0-9]+""#, #""id":"ID""#),
            (#""clientMessageId":"[a-z]+-[0-9]+""#, #""clientMessageId":"CMID""#), (#""createdAt":[0-9]+"#, #""createdAt":TIME"#),
        ] {
            text = text.replacingOccurrences(of: pattern, with: name, options: .regularExpression)
        }
        return text
    }

    static func normalized(_ frame: EventFrame) -> EventFrame {
        var frame = frame
        frame.seq = nil
        frame.message?.id = "ID"
        frame.message?.clientMessageId = "CMID"
        frame.message?.createdAt = 0
        return frame
    }

    /// `herald_mentions` of each text, in one statement.
    static func sqlMentions(_ texts: [String], candidates: [String], database url: String) throws -> [[String]] {
        let json = String(decoding: try JSONEncoder().encode(texts), as: UTF8.self)
        let array = "ARRAY[" + candidates.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ",") + "]::text[]"
        let rows = try PostgresCluster.run(
            """
            SELECT to_json(herald_mentions(t.text, \(array)))::text
            FROM json_array_elements_text($texts$\(json)$texts$::json) WITH ORDINALITY AS t(text, position) ORDER BY t.position
            """, database: url)
        return try rows.map { row in try JSONDecoder().decode([String].self, from: Data((row.first.flatMap { $0 } ?? "null").utf8)) }
    }
}
