import Foundation

/// Reads only the `id` of a request that did not decode, leniently, so its error response can still carry the id
/// (PROTOCOL.md: every request gets exactly one response, with its id when it has one), or say that the id itself is
/// what is wrong.
///
/// An `id` that is a JSON number but no `Int` (`1e30`, `1.5`, `1e400`, 2^63) cannot be echoed back, and "not valid
/// JSON" would send the client looking in the wrong place: it is answered `bad_request` "field 'id' must be an integer"
/// without an id, ahead of whatever else is wrong with the frame.
enum RequestIdProbe {
    /// The error for an `id` that is a number but not an integer that fits in 64 bits.
    static let notAnInteger = ErrorInfo(.badRequest, "field 'id' must be an integer (-2^63...2^63-1)")

    /// The failure to answer `data` with, given `error`, what decoding the whole request said.
    static func failure(_ data: Data, decoder: JSONDecoder, _ error: ErrorInfo) -> RequestDecodeFailure {
        switch (try? decoder.decode(Probe.self, from: data))?.id {
        case .integer(let id): RequestDecodeFailure(id: id, error: error)
        case .notAnInteger: RequestDecodeFailure(id: nil, error: notAnInteger)
        case .absent, nil: RequestDecodeFailure(id: nil, error: error)
        }
    }

    private enum ProbedId {
        case absent
        case integer(Int)
        case notAnInteger
    }

    private struct Probe: Decodable {
        var id = ProbedId.absent

        private enum CodingKeys: String, CodingKey { case id }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            do {
                if let id = try container.decodeIfPresent(Int.self, forKey: .id) { self.id = .integer(id) }
            } catch {
                // A string or an object is "the wrong type", which the request's own error already says.
                if (try? container.decode(Double.self, forKey: .id)) != nil { id = .notAnInteger }
            }
        }
    }
}
