import Foundation
import HeraldProtocol

extension JSONValue {
    /// Parses a provider's JSON answer or a credentials file; nil when it is not JSON.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var integer: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }
}
