import Glibc

// glibc declares memmem only with _GNU_SOURCE, so Swift's Glibc module leaves it out; declared by its C symbol
// (pointer and size arguments, passed alike by the Swift and C calling conventions), as Epoll.swift does for epoll.
@_silgen_name("memmem") private func c_memmem(
    _ haystack: UnsafeRawPointer, _ haystackLength: Int, _ needle: UnsafeRawPointer, _ needleLength: Int
) -> UnsafeRawPointer?

/// Reads the few fields the load generator needs straight from a herald.v1 frame's bytes, without decoding the
/// JSON: responses (`"type":"response"`, the integer `"id"`, `"ok"`), conversation events (a group announced to
/// its members) and message events whose text is one of ours (`hb <key> <sent-at-ns> …`, see ``BenchText``). Setup-time frames are decoded properly with
/// Foundation elsewhere; this is the per-delivery path.
struct SyncFrameScan {
    enum Kind: Equatable { case response, messageEvent, conversationEvent, otherEvent, unknown }

    var kind: Kind = .unknown
    /// A response's request id.
    var requestId: Int?
    var ok = false
    /// A message event's bench key, when the text is ours (its send time is the sender's record of that key).
    var key: Int?

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var noHint = 0
        self.init(bytes, textOffsetHint: &noHint)
    }

    /// `textOffsetHint`: where the bench text was in the previous message event, counted from where its body starts
    /// (updated here). A fan-out's receivers get one body after another, so the text is looked for there first and
    /// searched for only when it is not: `memmem` over the body was the generator's largest cost per delivery.
    init(_ bytes: UnsafeBufferPointer<UInt8>, textOffsetHint: inout Int) {
        // Nearly every frame of a load is a message event, which the server writes as `{"seq":N,` and then its shared
        // body, `"type":"event","event":"message",...`: recognised at that place without scanning the whole frame for
        // the other kinds' marks first (two of three `memmem` passes per delivery, a tenth of the generator's time).
        if let body = Self.bodyAfterSequence(bytes), Self.matches(Self.messageEventBody, in: bytes, at: body) {
            kind = .messageEvent
            readBenchText(bytes, from: body + Self.messageEventBody.count, hint: &textOffsetHint)
            return
        }
        if Self.find(Self.responseMark, in: bytes) != nil {
            kind = .response
            ok = Self.find(Self.okMark, in: bytes) != nil
            var from = 0
            // The top-level id is the only integer "id"; nested ids (message, conversation) are strings.
            while let at = Self.find(Self.idMark, in: bytes, from: from) {
                let next = at + Self.idMark.count
                if next < bytes.count, bytes[next] >= 48, bytes[next] <= 57 {
                    var cursor = next
                    requestId = Self.integer(bytes, &cursor).map(Int.init)
                    break
                }
                from = next
            }
        } else if Self.find(Self.messageEventMark, in: bytes) != nil {
            kind = .messageEvent
            readBenchText(bytes, from: 0, hint: &textOffsetHint)
        } else if Self.find(Self.conversationEventMark, in: bytes) != nil {
            kind = .conversationEvent
        } else if Self.find(Self.eventMark, in: bytes) != nil {
            kind = .otherEvent
        }
    }

    /// A bench text's key, from the `"text":"hb ` at or after `start` (a message event has one text):
    /// first at `start + hint`, else the first found, whose offset from `start` becomes the hint.
    private mutating func readBenchText(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, hint: inout Int) {
        let at: Int
        if Self.matches(Self.textMark, in: bytes, at: start + hint) {
            at = start + hint
        } else {
            guard let found = Self.find(Self.textMark, in: bytes, from: start) else { return }
            at = found
            hint = found - start
        }
        var cursor = at + Self.textMark.count
        if let key = Self.integer(bytes, &cursor), cursor < bytes.count, bytes[cursor] == 32 {
            self.key = Int(key)
        }
    }

    /// Where the shared body starts in a frame that begins `{"seq":<digits>,`; nil for any other frame.
    private static func bodyAfterSequence(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard matches(sequenceMark, in: bytes, at: 0) else { return nil }
        var cursor = sequenceMark.count
        guard integer(bytes, &cursor) != nil, cursor < bytes.count, bytes[cursor] == UInt8(ascii: ",") else { return nil }
        return cursor + 1
    }

    private static func matches(_ mark: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        guard offset >= 0, bytes.count - offset >= mark.count else { return false }
        return mark.withUnsafeBufferPointer { memcmp(bytes.baseAddress! + offset, $0.baseAddress!, mark.count) == 0 }
    }

    private static let sequenceMark = Array(#"{"seq":"#.utf8)
    private static let messageEventBody = Array(#""type":"event","event":"message""#.utf8)
    private static let responseMark = Array(#""type":"response""#.utf8)
    private static let okMark = Array(#""ok":true"#.utf8)
    private static let idMark = Array(#""id":"#.utf8)
    private static let messageEventMark = Array(#""event":"message""#.utf8)
    private static let conversationEventMark = Array(#""event":"conversation""#.utf8)
    private static let eventMark = Array(#""type":"event""#.utf8)
    private static let textMark = Array(#""text":"hb "#.utf8)

    /// glibc's `memmem` (vectorised): a frame is scanned for up to three marks per delivery, and a byte-by-byte loop
    /// here made the load generator, not the server, the bottleneck of a /sync fan-out.
    private static func find(_ needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int? {
        guard let base = haystack.baseAddress, start >= 0, haystack.count - start >= needle.count, !needle.isEmpty else { return nil }
        return needle.withUnsafeBytes { mark -> Int? in
            guard let needle = mark.baseAddress, let found = c_memmem(base + start, haystack.count - start, needle, mark.count) else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
        }
    }

    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ cursor: inout Int) -> UInt64? {
        var value: UInt64 = 0
        let start = cursor
        while cursor < bytes.count, bytes[cursor] >= 48, bytes[cursor] <= 57, cursor - start < 20 {
            value = value &* 10 &+ UInt64(bytes[cursor] - 48)
            cursor += 1
        }
        return cursor > start ? value : nil
    }
}

/// The text of a benchmark message: `hb <key> <sent-at-ns> ` padded with `x` to the requested size, so every
/// receiver can tell which message it got (loss and duplicate counting; the sender keeps each key's send time for
/// latency), and a reader of a captured frame when it was sent.
enum BenchText {
    static func make(key: Int, sentAt: UInt64, size: Int) -> String {
        var text = "hb \(key) \(sentAt) "
        if text.utf8.count < size { text += String(repeating: "x", count: size - text.utf8.count) }
        return text
    }
}

/// Builds herald.v1 requests (PROTOCOL.md). Ids and texts here are ASCII without quotes or backslashes.
enum SyncRequest {
    static func sync(id: Int, after: Int64? = nil) -> String {
        after.map { #"{"type":"sync","id":\#(id),"after":\#($0)}"# } ?? #"{"type":"sync","id":\#(id)}"#
    }

    static func group(id: Int, title: String, members: [String]) -> String {
        let list = members.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"type":"group","id":\#(id),"title":"\#(title)","members":[\#(list)]}"#
    }

    static func dm(id: Int, user: String) -> String { #"{"type":"dm","id":\#(id),"user":"\#(user)"}"# }

    static func typingStart(id: Int, conversation: String) -> String {
        #"{"type":"typing.start","id":\#(id),"conversation":"\#(conversation)"}"#
    }

    static func send(id: Int, conversation: String, clientMessageId: String, text: String) -> String {
        #"{"type":"send","id":\#(id),"conversation":"\#(conversation)","clientMessageId":"\#(clientMessageId)","text":"\#(text)"}"#
    }
}
