import Foundation
import HeraldProtocol
import PropertyBased
import Testing

@Suite("Server frames' JSON (JSONWriter) against Foundation's JSONEncoder and JSONDecoder")
struct FrameJSONTests {
    @Test("RFC 8259 section 7: quotation mark, reverse solidus and control characters are escaped; the rest is UTF-8")
    func stringEscapes() throws {
        var writer = JSONWriter()
        writer.object { $0.field("s", "a\"b\\c\n\r\t\u{08}\u{0C}\u{01}\u{1F} /é😀\u{7F}") }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"s":"a\"b\\c\n\r\t\b\f\u0001\u001f /é😀"# + "\u{7F}\"}")
        struct Probe: Decodable { var s: String }
        #expect(try JSONDecoder().decode(Probe.self, from: Data(writer.bytes)).s == "a\"b\\c\n\r\t\u{08}\u{0C}\u{01}\u{1F} /é😀\u{7F}")
    }

    @Test("Numbers at the ends of Int64, booleans, nested objects, arrays and sorted dictionaries")
    func values() {
        var writer = JSONWriter()
        writer.object { out in
            out.field("min", Int64.min)
            out.field("max", Int64.max)
            out.field("zero", 0)
            out.field("absent", nil as String?)
            out.field("yes", true)
            out.field("no", false)
            out.field("list", ["x", ""])
            out.field("empty", [String]())
            out.field("counts", ["c2": 1, "c10": -3, "a": 0])
            out.field("none", [String: Int]())
        }
        #expect(String(decoding: writer.bytes, as: UTF8.self)
            == #"{"min":-9223372036854775808,"max":9223372036854775807,"zero":0,"yes":true,"no":false,"list":["x",""],"empty":[],"#
            + #""counts":{"a":0,"c10":-3,"c2":1},"none":{}}"#)
    }

    @Test("A message event body, byte for byte (the seq is spliced in per user)")
    func messageEventFixture() {
        var event = EventFrame(event: .message)
        event.message = MessageInfo(
            id: "m7", conversation: "c3", sender: "alice", senderName: "Alice", kind: .text, text: "hi \"bob\"", imageURL: nil,
            clientMessageId: "k1", createdAt: 1_700_000_000_000)
        #expect(String(decoding: EventFrame.withSequence(event.encodeBody(), seq: 12), as: UTF8.self)
            == #"{"seq":12,"type":"event","event":"message","message":{"id":"m7","conversation":"c3","sender":"alice","#
            + #""senderName":"Alice","kind":"text","text":"hi \"bob\"","clientMessageId":"k1","createdAt":1700000000000}}"#)
    }

    @Test("Random responses and events: JSONDecoder reads back the same frame, and JSONEncoder's JSON has the same content")
    func randomFramesRoundTrip() async {
        await propertyCheck(count: 300, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var random = SplitMix(seed: seed)
            let response = random.response()
            let event = random.event()
            let responseBytes = response.encode()
            let eventBytes = EventFrame.withSequence(event.encodeBody(), seq: event.seq ?? 0)
            var withSeq = event
            withSeq.seq = event.seq ?? 0
            do {
                #expect(try JSONDecoder().decode(ResponseFrame.self, from: Data(responseBytes)) == response)
                #expect(try JSONDecoder().decode(EventFrame.self, from: Data(eventBytes)) == withSeq)
                #expect(try Self.sameJSON(responseBytes, Array(JSONEncoder().encode(response))))
                #expect(try Self.sameJSON(eventBytes, Array(JSONEncoder().encode(withSeq))))
            } catch {
                Issue.record("not decodable: \(error)\n\(String(decoding: responseBytes, as: UTF8.self))\n\(String(decoding: eventBytes, as: UTF8.self))")
            }
        }
    }

    private static func sameJSON(_ a: [UInt8], _ b: [UInt8]) throws -> Bool {
        let left = try JSONSerialization.jsonObject(with: Data(a)) as? NSDictionary
        let right = try JSONSerialization.jsonObject(with: Data(b)) as? NSDictionary
        return left != nil && left == right
    }
}

/// Random response and event frames.
private extension SplitMix {
    /// Strings mixing ASCII, JSON's special characters, controls, Latin-1, emoji and a combining accent.
    mutating func string() -> String {
        let pool: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{00}", "\u{01}", "\u{1F}", "\u{7F}", "é", "e", "\u{301}", "😀", "€", "\u{2028}"]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<below(12) { scalars.append(pool[below(pool.count)]) }
        return String(scalars)
    }

    mutating func optionalString() -> String? { chance() ? string() : nil }
    mutating func int64() -> Int64 { Int64(bitPattern: next()) >> Int64(below(64)) }
    mutating func optionalInt() -> Int? { chance() ? Int(int64() >> 1) : nil }
    mutating func strings() -> [String] { (0..<below(4)).map { _ in string() } }
    mutating func counts() -> [String: Int] { Dictionary((0..<below(4)).map { _ in (string(), Int(int64() >> 1)) }, uniquingKeysWith: { a, _ in a }) }

    mutating func message() -> MessageInfo {
        MessageInfo(
            id: string(), conversation: string(), sender: string(), senderName: string(), kind: chance() ? .text : .image,
            text: optionalString(), imageURL: optionalString(), clientMessageId: optionalString(), createdAt: int64())
    }

    mutating func conversation() -> ConversationInfo {
        ConversationInfo(
            id: string(), kind: chance() ? .direct : .group, title: optionalString(),
            participants: (0..<below(3)).map { _ in ParticipantInfo(id: string(), name: string()) }, unread: Int(int64() >> 1),
            lastMessage: chance() ? message() : nil, lastActivity: int64())
    }

    mutating func notification() -> NotificationInfo {
        NotificationInfo(
            id: string(), kind: NotificationKind.allCases[below(NotificationKind.allCases.count)], actor: optionalString(), text: string(),
            url: optionalString(), read: chance(), createdAt: int64())
    }

    mutating func response() -> ResponseFrame {
        var frame = ResponseFrame(id: optionalInt(), ok: chance())
        if chance() { frame.error = ErrorInfo(ErrorCode.allCases[below(ErrorCode.allCases.count)], string()) }
        if chance() { frame.mode = [SyncMode.snapshot, .resume, .resync][below(3)] }
        if chance() { frame.latest = int64() }
        if chance() { frame.more = chance() }
        if chance() { frame.conversation = conversation() }
        if chance() { frame.conversations = (0..<below(3)).map { _ in conversation() } }
        if chance() { frame.messages = (0..<below(3)).map { _ in message() } }
        if chance() { frame.hasMore = chance() }
        if chance() { frame.users = (0..<below(3)).map { _ in ParticipantInfo(id: string(), name: string()) } }
        if chance() { frame.message = message() }
        if chance() { frame.duplicate = chance() }
        if chance() { frame.read = strings() }
        if chance() { frame.unread = counts() }
        frame.badge = optionalInt()
        if chance() { frame.notification = notification() }
        if chance() { frame.notifications = (0..<below(3)).map { _ in notification() } }
        frame.bellUnread = optionalInt()
        return frame
    }

    mutating func event() -> EventFrame {
        let names: [EventName] = [.message, .conversation, .read, .receipt, .bell, .push, .pushCleared]
        var frame = EventFrame(event: names[below(names.count)])
        if chance() { frame.seq = int64() }
        if chance() { frame.message = message() }
        if chance() { frame.conversation = conversation() }
        frame.conversationId = optionalString()
        if chance() { frame.messages = strings() }
        if chance() { frame.unread = counts() }
        frame.badge = optionalInt()
        frame.messageId = optionalString()
        frame.reader = optionalString()
        if chance() { frame.at = int64() }
        if chance() { frame.action = [BellAction.created, .read, .readAll][below(3)] }
        if chance() { frame.notification = notification() }
        if chance() { frame.notificationIds = strings() }
        frame.bellUnread = optionalInt()
        if chance() { frame.push = PushInfo(conversation: string(), message: string(), sender: string(), preview: string(), title: string(), url: string()) }
        return frame
    }
}
