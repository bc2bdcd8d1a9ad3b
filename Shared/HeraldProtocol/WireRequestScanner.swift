/// The fast path of ``RequestFrame/decode(_:limits:)``: a strict reader for the flat request object.
///
/// Foundation's `JSONDecoder` was about a tenth of the server's CPU in the insert benchmark (a `Data`, a value tree and
/// keyed containers per request). This reader accepts a subset of JSON it can decode exactly like `JSONDecoder` would:
/// one object of known keys with strings, plain integers, booleans, string arrays and nulls, and unknown keys with any
/// well-formed value (skipped, as `JSONDecoder` ignores them). Anything else — malformed JSON, a wrong type, a number
/// with a fraction or exponent, a duplicate known key, an unknown enum value, deep nesting — returns nil, and the
/// caller decodes with `JSONDecoder`, whose answer (and error message) is then the answer. So the fast path can only
/// ever agree with the slow one; the tests compare both on random and broken requests.
struct WireRequestScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Nesting allowed inside skipped values before handing over to `JSONDecoder`.
    private static let maxDepth = 32

    static func scan(_ input: [UInt8]) -> WireRequest? {
        input.withUnsafeBufferPointer { buffer in
            var scanner = WireRequestScanner(bytes: buffer)
            return try? scanner.request()
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: - The request object

    private mutating func request() throws(FallBack) -> WireRequest {
        var type: String?
        var id: Int?
        var wire = WireRequest(type: "", id: 0)
        var seen: UInt64 = 0
        skipSpace()
        try expect(UInt8(ascii: "{"))
        skipSpace()
        if !take(UInt8(ascii: "}")) {
            repeat {
                skipSpace()
                let key = try string()
                skipSpace()
                try expect(UInt8(ascii: ":"))
                skipSpace()
                if let bit = Self.knownKeys[key] {
                    // JSONDecoder's handling of a repeated key is its own business: let it decide.
                    guard seen & (1 << bit) == 0 else { throw FallBack() }
                    seen |= 1 << bit
                }
                switch key {
                case "type": type = try string()
                case "id": id = try Int(exactly: integer()).orFallBack()
                case "after": wire.after = try optional { (s: inout Self) throws(FallBack) in try s.integer() }
                case "user": wire.user = try optionalString()
                case "title": wire.title = try optionalString()
                case "members": wire.members = try optional { (s: inout Self) throws(FallBack) in try s.stringArray() }
                case "conversation": wire.conversation = try optionalString()
                case "before": wire.before = try optionalString()
                case "limit": wire.limit = try optional { (s: inout Self) throws(FallBack) in try Int(exactly: s.integer()).orFallBack() }
                case "clientMessageId": wire.clientMessageId = try optionalString()
                case "kind": wire.kind = try optional { (s: inout Self) throws(FallBack) in try MessageKind(rawValue: s.string()).orFallBack() }
                case "text": wire.text = try optionalString()
                case "imageURL": wire.imageURL = try optionalString()
                case "messages": wire.messages = try optional { (s: inout Self) throws(FallBack) in try s.stringArray() }
                case "scene": wire.scene = try optional { (s: inout Self) throws(FallBack) in try SceneName(rawValue: s.string()).orFallBack() }
                case "tab": wire.tab = try optionalString()
                case "foreground": wire.foreground = try optional { (s: inout Self) throws(FallBack) in try s.boolean() }
                case "atBottom": wire.atBottom = try optional { (s: inout Self) throws(FallBack) in try s.boolean() }
                case "notification": wire.notification = try optionalString()
                case "message": wire.message = try optionalString()
                case "emoji": wire.emoji = try optionalString()
                case "device": wire.device = try optionalString()
                case "cursor": wire.cursor = try optionalString()
                case "provider": wire.provider = try optionalString()
                case "token": wire.token = try optionalString()
                case "topic": wire.topic = try optionalString()
                case "sandbox": wire.sandbox = try optional { (s: inout Self) throws(FallBack) in try s.boolean() }
                case "endpoint": wire.endpoint = try optionalString()
                case "p256dh": wire.p256dh = try optionalString()
                case "auth": wire.auth = try optionalString()
                case "until": wire.until = try optional { (s: inout Self) throws(FallBack) in try s.integer() }
                case "minutes": wire.minutes = try optional { (s: inout Self) throws(FallBack) in try Int(exactly: s.integer()).orFallBack() }
                case "on": wire.on = try optional { (s: inout Self) throws(FallBack) in try s.boolean() }
                default: try skipValue(depth: 1)
                }
                skipSpace()
            } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
        }
        skipSpace()
        guard index == bytes.count, let type, let id else { throw FallBack() }
        wire.type = type
        wire.id = id
        return wire
    }

    private static let knownKeys: [String: UInt64] = {
        let keys = [
            "type", "id", "after", "user", "title", "members", "conversation", "before", "limit", "clientMessageId", "kind", "text",
            "imageURL", "messages", "scene", "tab", "foreground", "atBottom", "notification", "message", "emoji", "device", "cursor",
            "provider", "token", "topic", "sandbox", "endpoint", "p256dh", "auth", "until", "on", "minutes",
        ]
        // One bit per key in `seen`: at most 64.
        return Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($0.element, UInt64($0.offset)) })
    }()

    // MARK: - Values

    /// `null` is nil (as `decodeIfPresent` reads it); anything else is read by `value`.
    private mutating func optional<T>(_ value: (inout Self) throws(FallBack) -> T) throws(FallBack) -> T? {
        if literal("null") { return nil }
        return try value(&self)
    }

    private mutating func optionalString() throws(FallBack) -> String? {
        if literal("null") { return nil }
        return try string()
    }

    private mutating func boolean() throws(FallBack) -> Bool {
        if literal("true") { return true }
        if literal("false") { return false }
        throw FallBack()
    }

    /// A plain JSON integer (`-?(0|[1-9][0-9]*)`) that fits Int64; fractions, exponents and `-0` fall back.
    private mutating func integer() throws(FallBack) -> Int64 {
        let negative = take(UInt8(ascii: "-"))
        let start = index
        var magnitude: UInt64 = 0
        while index < bytes.count, let digit = Self.digit(bytes[index]) {
            let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { throw FallBack() }
            magnitude = sum
            index += 1
        }
        let length = index - start
        guard length > 0, length == 1 || bytes[start] != UInt8(ascii: "0") else { throw FallBack() }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) { throw FallBack() }
        if negative {
            guard magnitude > 0, magnitude <= UInt64(Int64.max) + 1 else { throw FallBack() }
            return magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw FallBack() }
        return Int64(magnitude)
    }

    private mutating func stringArray() throws(FallBack) -> [String] {
        try expect(UInt8(ascii: "["))
        skipSpace()
        var items: [String] = []
        if take(UInt8(ascii: "]")) { return items }
        repeat {
            skipSpace()
            items.append(try string())
            skipSpace()
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
        return items
    }

    /// A JSON string. Without escapes the bytes are validated as UTF-8 in place; with escapes they are decoded
    /// into a buffer (`\uXXXX` pairs combined; a lone surrogate falls back).
    private mutating func string() throws(FallBack) -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        var bytesOred: UInt8 = 0
        while index < bytes.count {
            skipPlainASCII()
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                // ASCII is valid UTF-8 as it is; only other text needs the (generic, per-byte) validating decoder.
                if bytesOred < 0x80 { return String(decoding: slice, as: UTF8.self) }
                return try String(validating: slice, as: UTF8.self).orFallBack()
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            guard byte >= 0x20 else { throw FallBack() }
            bytesOred |= byte
            index += 1
        }
        throw FallBack()
    }

    /// Moves `index` past whole 8-byte words of printable ASCII without a quote or backslash: what a string's scan
    /// would step over byte by byte.
    private mutating func skipPlainASCII() {
        guard let base = bytes.baseAddress else { return }
        index = JSONWordScan.skipPlainASCII(UnsafeRawPointer(base), from: index, count: bytes.count)
    }

    private mutating func escapedString(from start: Int) throws(FallBack) -> String {
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try String(validating: out, as: UTF8.self).orFallBack()
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw FallBack() }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard literal("\\u") else { throw FallBack() }
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw FallBack() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw FallBack() }
                    out.append(contentsOf: UTF8.encode(unicode).map { Array($0) } ?? [])
                default: throw FallBack()
                }
            default:
                guard byte >= 0x20 else { throw FallBack() }
                out.append(byte)
            }
        }
        throw FallBack()
    }

    private mutating func hex4() throws(FallBack) -> UInt32 {
        guard index + 4 <= bytes.count else { throw FallBack() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: throw FallBack()
            }
            value = value << 4 | UInt32(nibble)
            index += 1
        }
        return value
    }

    /// Skips one well-formed JSON value of an unknown key.
    private mutating func skipValue(depth: Int) throws(FallBack) {
        guard depth <= Self.maxDepth, index < bytes.count else { throw FallBack() }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // An object is an array whose members each have a key in front.
            let isObject = bytes[index] == UInt8(ascii: "{")
            let end = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            index += 1
            skipSpace()
            if take(end) { return }
            repeat {
                skipSpace()
                if isObject {
                    _ = try string()
                    skipSpace()
                    try expect(UInt8(ascii: ":"))
                    skipSpace()
                }
                try skipValue(depth: depth + 1)
                skipSpace()
            } while take(UInt8(ascii: ","))
            try expect(end)
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try boolean()
        case UInt8(ascii: "n"):
            guard literal("null") else { throw FallBack() }
        default:
            try skipNumber()
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func skipNumber() throws(FallBack) {
        _ = take(UInt8(ascii: "-"))
        let start = index
        guard skipDigits() > 0, index - start == 1 || bytes[start] != UInt8(ascii: "0") else { throw FallBack() }
        if take(UInt8(ascii: ".")) { guard skipDigits() > 0 else { throw FallBack() } }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            guard skipDigits() > 0 else { throw FallBack() }
        }
    }

    private mutating func skipDigits() -> Int {
        let start = index
        while index < bytes.count, Self.digit(bytes[index]) != nil { index += 1 }
        return index - start
    }

    // MARK: - Bytes

    private static func digit(_ byte: UInt8) -> UInt8? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : nil
    }

    /// JSON whitespace (RFC 8259 section 2): space, tab, line feed, carriage return.
    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
            index += 1
        }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func expect(_ byte: UInt8) throws(FallBack) {
        guard take(byte) else { throw FallBack() }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let matches = word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        if matches { index += count }
        return matches
    }
}

/// Anything the scanner does not take on: the caller decodes with `JSONDecoder` instead.
private struct FallBack: Error {}

private extension Optional {
    /// The value, or a fall back to `JSONDecoder`.
    func orFallBack() throws(FallBack) -> Wrapped {
        guard let self else { throw FallBack() }
        return self
    }
}
