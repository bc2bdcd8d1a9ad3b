/// HTTP header fields in received order, with case-insensitive lookup (RFC 9110 §5.1) and repeated names kept.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One field as received: the name's original case and the value with surrounding whitespace removed.
    public struct Field: Sendable, Hashable {
        /// The field name as sent.
        public var name: String
        /// The field value, without leading or trailing whitespace.
        public var value: String
    }

    /// All fields in order.
    public private(set) var fields: [Field] = []

    /// An empty header block.
    public init() {}

    /// Headers from name/value pairs, in order.
    public init(_ pairs: [(String, String)]) {
        for (name, value) in pairs { add(name: name, value: value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// Appends a field.
    public mutating func add(name: String, value: String) { fields.append(Field(name: name, value: value)) }

    /// The first value of `name` (case-insensitive), or `nil`.
    public subscript(name: String) -> String? {
        fields.first { Self.namesEqual($0.name, name) }?.value
    }

    /// Every value of `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesEqual($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool { fields.contains { Self.namesEqual($0.name, name) } }

    /// The comma-separated list elements of every `name` field (RFC 9110 §5.6.1), trimmed, empty ones dropped.
    public func listValues(for name: String) -> [String] {
        // By bytes: splitting and trimming by Character cost a tenth of a /sync upgrade's instructions.
        var elements: [String] = []
        for value in values(for: name) {
            let bytes = Array(value.utf8)
            for element in bytes.split(separator: UInt8(ascii: ",")) {
                let trimmed = Self.trimmed(element)
                if !trimmed.isEmpty { elements.append(String(decoding: trimmed, as: UTF8.self)) }
            }
        }
        return elements
    }

    /// Whether the `name` list contains `token`, compared case-insensitively (e.g. `Connection: keep-alive, Upgrade`).
    public func listContainsToken(_ name: String, _ token: String) -> Bool {
        listValues(for: name).contains { Self.namesEqual($0, token) }
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// ASCII case-insensitive comparison, which is what HTTP names and tokens need (no Unicode case folding).
    public static func namesEqual(_ lhs: String, _ rhs: String) -> Bool {
        let a = lhs.utf8, b = rhs.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { lowerASCII($0) == lowerASCII($1) }
    }

    static func lowerASCII(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// `bytes` without leading and trailing spaces and tabs (RFC 9110 §5.5: OWS around a field value).
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let start = bytes.firstIndex { !isSpaceOrTab($0) } ?? bytes.endIndex
        let end = bytes[start...].lastIndex { !isSpaceOrTab($0) }.map { $0 + 1 } ?? start
        return bytes[start..<end]
    }

    private static func isSpaceOrTab(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
}
