import HeraldRules

/// A JSON value whose objects keep their key order, so every output line the client writes reads in the order the
/// contract documents (`type` first) and tests can diff lines as text; and, decoded, a request body the backend API
/// checks field by field with exact types (a `true` is not a number, `1.0` is an integer as JSON Schema says).
public enum JSONValue: Equatable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    case null
    case bool(Bool)
    case int(Int64)
    /// A number that is not an integer Int64 can hold (a fraction, an exponent beyond Int64).
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([JSONField])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(Int64(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }

    /// A string, or null when `value` is nil.
    public static func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

    /// An integer value.
    public static func number(_ value: Int) -> JSONValue { .int(Int64(value)) }

    /// An array of strings.
    public static func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }

    /// The value of `key` in an object, else nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.key == key }?.value
    }

    /// The compact JSON text of this value (one line: newlines inside strings are escaped).
    public var text: String {
        var out = ""
        write(into: &out, escapingTerminalControls: false)
        return out
    }

    /// ``text`` with DEL, the C1 controls (U+0080-U+009F) and the bidirectional formatting characters (U+061C,
    /// U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) escaped as `\uXXXX` too: the same JSON, but a terminal showing
    /// it obeys nothing in it (a raw U+009B is a CSI to many terminals).
    public var terminalSafeText: String {
        var out = ""
        write(into: &out, escapingTerminalControls: true)
        return out
    }

    private func write(into out: inout String, escapingTerminalControls: Bool) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value): out += value.isFinite ? String(value) : "null"
        case .string(let value): JSONValue.writeString(value, into: &out, escapingTerminalControls: escapingTerminalControls)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(into: &out, escapingTerminalControls: escapingTerminalControls)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (index, field) in fields.enumerated() {
                if index > 0 { out += "," }
                JSONValue.writeString(field.key, into: &out, escapingTerminalControls: escapingTerminalControls)
                out += ":"
                field.value.write(into: &out, escapingTerminalControls: escapingTerminalControls)
            }
            out += "}"
        }
    }

    private static func writeString(_ value: String, into out: inout String, escapingTerminalControls: Bool) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029
                || (escapingTerminalControls && (TerminalText.isControl(scalar) || TerminalText.isBidiControl(scalar))):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension JSONValue: Decodable {
    /// Numbers that are whole and fit Int64 decode as ``int(_:)``, others as ``double(_:)``. Object keys come in the
    /// decoder's order, which is not the text's: decoded objects are for lookups, not for writing back.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            if value.rounded() == value, let whole = Int64(exactly: value) { self = .int(whole) } else { self = .double(value) }
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            let object = try container.decode([String: JSONValue].self)
            self = .object(object.keys.sorted().map { JSONField($0, object[$0]!) })
        }
    }

    /// The value as a number (integer or not), else nil.
    public var numberValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The fields of an object by key (a repeated key: the last one), else nil.
    public var fieldsByKey: [String: JSONValue]? {
        guard case .object(let fields) = self else { return nil }
        return Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}

/// One key and value of a JSON object.
public struct JSONField: Equatable, Sendable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

extension JSONValue {
    /// An object from key-value pairs in order.
    public static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { JSONField($0.key, $0.value) })
    }

    /// An object from a `[String: Int]` map, keys sorted so the text is stable.
    public static func counts(_ map: [String: Int]) -> JSONValue {
        .object(map.keys.sorted().map { JSONField($0, .number(map[$0] ?? 0)) })
    }
}
