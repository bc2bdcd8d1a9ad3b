import HeraldProtocol
import Testing

/// An `id` that is a JSON number but no Int cannot be echoed back: the answer is bad_request naming the id, without an
/// id, instead of bad_json (the frame is valid JSON) or an error that blames another field.
@Suite("herald.v1 request decoding: ids that are numbers but not integers")
struct RequestIdProbeTests {
    private func decodeFailure(_ json: String) -> RequestDecodeFailure? {
        guard case .failure(let failure) = RequestFrame.decode(Array(json.utf8)) else { return nil }
        return failure
    }

    @Test("a non-integer numeric id is bad_request \"field 'id' must be an integer\" without an id", arguments: [
        #"{"id":1e30}"#, #"{"type":"sync","id":1e30}"#, #"{"type":"sync","id":1.5}"#, #"{"type":"sync","id":-0.25}"#,
        #"{"type":"sync","id":99999999999999999999}"#, #"{"type":"sync","id":-9223372036854775809}"#,
        #"{"type":"teleport","id":2.5}"#, #"{"id":1e30,"type":"send","conversation":5}"#,
    ])
    func nonIntegerNumber(_ json: String) throws {
        let failure = try #require(decodeFailure(json), "decoded \(json)")
        #expect(failure.error.code == .badRequest, "\(json): \(failure.error)")
        #expect(failure.error.message.contains("field 'id' must be an integer"), "\(json): \(failure.error.message)")
        #expect(failure.id == nil)
    }

    @Test("ids at the ends of Int64 still decode, and an integer id is still echoed on other errors")
    func integerIdsUnchanged() throws {
        #expect(try RequestFrame.decode(Array(#"{"type":"sync","id":9223372036854775807}"#.utf8)).get().id == .max)
        #expect(try RequestFrame.decode(Array(#"{"type":"sync","id":-9223372036854775808}"#.utf8)).get().id == .min)
        let unknown = try #require(decodeFailure(#"{"type":"teleport","id":3}"#))
        #expect(unknown.error.code == .unknownType && unknown.id == 3)
        let missing = try #require(decodeFailure(#"{"id":7}"#))
        #expect(missing.error.code == .badRequest && missing.id == 7)
    }

    @Test("an id of another JSON type keeps its own error; malformed JSON stays bad_json")
    func otherTypesUnchanged() throws {
        let text = try #require(decodeFailure(#"{"type":"sync","id":"one"}"#))
        #expect(text.error.code == .badRequest && text.id == nil && !text.error.message.contains("must be an integer"))
        let broken = try #require(decodeFailure(#"{"id":1e30"#))
        #expect(broken.error.code == .badJSON && broken.id == nil)
    }
}
