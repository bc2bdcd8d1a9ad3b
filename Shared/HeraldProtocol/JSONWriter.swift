/// Appends compact JSON (RFC 8259) to a byte array, for the frames the server writes on every message.
///
/// Foundation's `JSONEncoder` took about a fifth of the sync thread's time under load (boxing every field into
/// containers, generic metadata lookups, a `Data` per frame). The writer appends straight into one array, keys in
/// declaration order, absent optionals omitted, dictionaries with sorted keys, like the synthesized `Codable`
/// conformances the clients decode with. Strings are escaped as RFC 8259 section 7 requires: `"`, `\` and the
/// control characters below U+0020; everything else is copied as UTF-8 (Swift strings are always valid UTF-8).
public struct JSONWriter {
    public private(set) var bytes: [UInt8]
    /// Whether the next key or array element needs a comma before it.
    private var needsComma = false

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: - Structure

    /// Writes `{`, the fields `body` adds, and `}` as the next value.
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Writes `[`, the elements `body` adds, and `]` as the next value.
    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"key":` (after a comma when needed); the caller writes the value next.
    public mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        // Two single appends: appending an array literal cost as much as the key itself.
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Writes a comma before an array element when one is needed.
    public mutating func element() {
        separate()
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = false
    }

    // MARK: - Values

    public mutating func value(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var start = 0
            var index = 0
            let count = utf8.count
            while index < count {
                if let base = utf8.baseAddress { index = JSONWordScan.skipUnescaped(UnsafeRawPointer(base), from: index, count: count) }
                guard index < count else { break }
                let byte = utf8[index]
                index += 1
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index - 1]))
                appendEscape(byte)
                start = index
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func value(_ number: Int64) {
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = number.magnitude  // UInt64 holds |Int64.min|
        var divisor: UInt64 = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        }
        needsComma = true
    }

    public mutating func value(_ number: Int) {
        value(Int64(number))
    }

    public mutating func value(_ flag: Bool) {
        if flag {
            bytes.append(contentsOf: [UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e")])
        } else {
            bytes.append(contentsOf: [UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e")])
        }
        needsComma = true
    }

    private mutating func appendEscape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }

    // MARK: - Fields (key and value; nil writes nothing)

    public mutating func field(_ name: StaticString, _ string: String?) {
        guard let string else { return }
        key(name)
        value(string)
    }

    public mutating func field(_ name: StaticString, _ number: Int64?) {
        guard let number else { return }
        key(name)
        value(number)
    }

    public mutating func field(_ name: StaticString, _ number: Int?) {
        guard let number else { return }
        key(name)
        value(number)
    }

    public mutating func field(_ name: StaticString, _ flag: Bool?) {
        guard let flag else { return }
        key(name)
        value(flag)
    }

    public mutating func field<Value: JSONWritable>(_ name: StaticString, _ object: Value?) {
        guard let object else { return }
        key(name)
        object.write(to: &self)
    }

    public mutating func field(_ name: StaticString, _ strings: [String]?) {
        guard let strings else { return }
        key(name)
        array { writer in
            for string in strings {
                writer.element()
                writer.value(string)
            }
        }
    }

    public mutating func field<Value: JSONWritable>(_ name: StaticString, _ objects: [Value]?) {
        guard let objects else { return }
        key(name)
        array { writer in
            for object in objects {
                writer.element()
                object.write(to: &writer)
            }
        }
    }

    /// A `[String: Int]` as an object with its keys in sorted order (the same bytes for the same counts).
    public mutating func field(_ name: StaticString, _ counts: [String: Int]?) {
        guard let counts else { return }
        key(name)
        object { writer in
            for (key, count) in counts.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                writer.separate()
                writer.value(key)
                writer.bytes.append(UInt8(ascii: ":"))
                writer.value(count)
            }
        }
    }
}

/// A value that writes itself as one JSON value (an object, for the wire types).
public protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}
