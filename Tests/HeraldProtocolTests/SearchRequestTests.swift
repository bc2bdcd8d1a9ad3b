import HeraldProtocol
import Testing

/// The `search` request's fields as PROTOCOL.md states them: text 1-256 bytes, limit 1-100 (default 20), ids checked.
@Suite("herald.v1 search request")
struct SearchRequestTests {
    private func decode(_ json: String) -> Result<RequestFrame, RequestDecodeFailure> {
        RequestFrame.decode(Array(json.utf8))
    }

    private func refusal(_ json: String) -> ErrorInfo? {
        guard case .failure(let failure) = decode(json) else { return nil }
        return failure.error
    }

    @Test("Without limit a page is 20; before is optional")
    func defaults() throws {
        let frame = try decode(#"{"type":"search","id":4,"conversation":"c1","text":"deploy"}"#).get()
        #expect(frame.request == .search(conversation: "c1", text: "deploy", before: nil, limit: 20))
    }

    @Test("A missing or empty text, a text over 256 bytes, a limit outside 1-100 and a bad cursor are bad_request")
    func refusals() {
        #expect(refusal(#"{"type":"search","id":1,"conversation":"c1"}"#)?.code == .badRequest)
        #expect(refusal(#"{"type":"search","id":1,"conversation":"c1","text":""}"#)?.code == .badRequest)
        let long = String(repeating: "a", count: 257)
        #expect(refusal(#"{"type":"search","id":1,"conversation":"c1","text":"\#(long)"}"#) != nil)
        #expect(refusal(#"{"type":"search","id":1,"conversation":"c1","text":"\#(String(long.dropFirst()))"}"#) == nil, "256 bytes pass")
        #expect(refusal(#"{"type":"search","id":1,"conversation":"c1","text":"x","limit":0}"#)?.code == .badRequest)
        #expect(refusal(#"{"type":"search","id":1,"conversation":"c1","text":"x","limit":101}"#)?.code == .badRequest)
        #expect(refusal(#"{"type":"search","id":1,"conversation":"c1","text":"x","limit":100}"#) == nil)
        #expect(refusal(#"{"type":"search","id":1,"text":"x"}"#)?.code == .badRequest, "no conversation")
        #expect(refusal(#"{"type":"search","id":1,"conversation":"c1","text":"x","before":""}"#)?.code == .badRequest)
    }
}
