import HeraldWebSocket

/// The body of a refused upgrade, where the server says why in one line (`token expired`, `bad token signature…`).
/// It is read up to its `Content-Length`, capped at ``maxBytes``; without a length, what came with the head is all
/// that is waited for. It may arrive in the same read as the head or in later ones.
struct UpgradeRefusalBody: Equatable {
    /// A refusal's reason is one short line; nothing longer is worth holding or printing.
    static let maxBytes = 512
    /// Longest reason shown, in characters.
    static let maxReasonLength = 200

    /// The response's status and what was wrong with it (``HandshakeFailure``'s description).
    let status: Int?
    let failure: String
    /// How many body bytes to wait for.
    private let expected: Int
    private var bytes: [UInt8] = []

    /// - Parameters:
    ///   - head: the refusing response's head.
    ///   - failure: why it is not a handshake.
    ///   - initial: the bytes that came after the head in the same read.
    init(head: HTTPResponseHead, failure: HandshakeFailure, initial: ArraySlice<UInt8>) {
        status = failure.status
        self.failure = failure.description
        let length = head.headers["Content-Length"].flatMap { Int($0) }.map { max($0, 0) }
        expected = min(length ?? initial.count, Self.maxBytes)
        append(initial)
    }

    /// Whether every body byte to wait for is here.
    var isComplete: Bool { bytes.count >= expected }

    /// Takes bytes read after the head, up to the expected length.
    mutating func append(_ more: ArraySlice<UInt8>) {
        bytes += more.prefix(max(expected - bytes.count, 0))
    }

    /// The body's first line as text fit for a terminal: control characters (escape sequences included) dropped,
    /// trimmed, at most ``maxReasonLength`` characters; nil when the server gave none.
    var reason: String? {
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).first ?? ""
        let printable = line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) }
        let text = String(String.UnicodeScalarView(printable)).trimmingWhitespace()
        guard !text.isEmpty else { return nil }
        return text.count > Self.maxReasonLength ? String(text.prefix(Self.maxReasonLength)) + "…" : text
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
