import Foundation

/// A parsed JSON value, so request bodies are checked field by field with exact types (a `true` is not a number,
/// `1.0` is an integer as JSON Schema says) and every refusal names the field.
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses a request body: `bad_json` when it is not JSON, `bad_request` when it is not an object.
    static func object(from body: [UInt8]) throws(APIError) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(body))
        } catch {
            throw APIError(400, "bad_json", "the body is not valid JSON")
        }
        guard case .object(let object) = value else { throw APIError(400, "bad_request", "the body must be a JSON object") }
        return object
    }
}
