import Foundation
import HeraldProtocol

extension JSONValue {
    /// Parses a request body: `bad_json` when it is not JSON, `bad_request` when it is not an object.
    static func object(from body: [UInt8]) throws(APIError) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(body))
        } catch {
            throw APIError(400, "bad_json", "the body is not valid JSON")
        }
        guard let object = value.fieldsByKey else { throw APIError(400, "bad_request", "the body must be a JSON object") }
        return object
    }
}
