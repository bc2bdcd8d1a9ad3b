import HeraldProtocol
import HeraldRules
import Testing

@Suite("herald.v1 request decoding")
struct RequestDecodingTests {
    private func decode(_ json: String) -> Result<RequestFrame, RequestDecodeFailure> {
        RequestFrame.decode(Array(json.utf8))
    }

    @Test("every request type survives encode then decode", arguments: [
        ClientRequest.sync(after: nil), .sync(after: 41), .conversations, .dm(user: "bob"),
        .group(title: "Team A", members: ["bob", "carol"]), .history(conversation: "c1", before: "m9", limit: 20),
        .send(conversation: "c1", clientMessageId: "k1", kind: .text, text: "hi", imageURL: nil),
        .send(conversation: "c1", clientMessageId: "k2", kind: .image, text: nil, imageURL: "https://x.example/y.png"),
        .ack(messages: ["m1", "m2"]), .scene(SceneReport(scene: .thread("c1"), foreground: true, atBottom: true)),
        .scene(SceneReport(scene: .background, foreground: false)), .bell, .bellRead(notification: "n1"), .bellReadAll,
        .follow(user: "bob"), .react(message: "m1", emoji: "👍"), .signOut(device: nil), .signOut(device: "phone"),
        .leave(conversation: "c3"), .members(conversation: "c3", after: nil, limit: 500), .members(conversation: "c3", after: "bob", limit: 20),
        .users(after: nil, prefix: nil, limit: 50), .users(after: "bob", prefix: "Ca", limit: 200),
        .mute(conversation: "c1", until: nil, minutes: nil), .mute(conversation: "c1", until: 1_763_800_000_000, minutes: nil),
        .mute(conversation: "c1", until: nil, minutes: 60), .unmute(conversation: "c1"), .quiet(on: true), .markUnread(conversation: "c1"),
        .editMessage(message: "m1", text: "fixed"), .unsendMessage(message: "m1"), .typingStart(conversation: "c1"), .typingStop(conversation: "c1"),
        .renameGroup(conversation: "c2", title: "Team B"), .addMember(conversation: "c2", user: "dave"), .removeMember(conversation: "c2", user: "carol"),
        .search(conversation: "c1", text: "deploy fri", before: nil, limit: 20), .search(conversation: "c1", text: "東京", before: "m9", limit: 100),
    ])
    func roundTrip(_ request: ClientRequest) throws {
        let frame = RequestFrame(id: 7, request: request)
        #expect(try RequestFrame.decode(frame.encode()).get() == frame)
    }

    @Test("malformed JSON is bad_json with no id")
    func malformed() {
        guard case .failure(let failure) = decode("{nope") else { Issue.record("decoded garbage"); return }
        #expect(failure.error.code == .badJSON)
        #expect(failure.id == nil)
    }

    @Test("unknown type is unknown_type and keeps the id")
    func unknownType() {
        guard case .failure(let failure) = decode(#"{"type":"teleport","id":3}"#) else { Issue.record("accepted"); return }
        #expect(failure.error.code == .unknownType)
        #expect(failure.id == 3)
    }

    @Test("a wrong field type is bad_request naming the field, and keeps the id")
    func wrongType() {
        guard case .failure(let failure) = decode(#"{"type":"send","id":4,"conversation":5,"clientMessageId":"k","text":"x"}"#) else {
            Issue.record("accepted")
            return
        }
        #expect(failure.error.code == .badRequest)
        #expect(failure.error.message.contains("conversation"))
        #expect(failure.id == 4)
    }

    @Test("oversized text is too_large")
    func oversized() {
        let text = String(repeating: "a", count: ProtocolLimits.default.maxTextBytes + 1)
        guard case .failure(let failure) = decode(#"{"type":"send","id":5,"conversation":"c1","clientMessageId":"k","text":"\#(text)"}"#)
        else { Issue.record("accepted"); return }
        #expect(failure.error.code == .tooLarge)
    }

    @Test("Text with U+0000 is bad_request naming the field: PostgreSQL cannot store it, so no store takes it", arguments: [
        #"{"type":"send","id":6,"conversation":"c1","clientMessageId":"k","text":"a\u0000b"}"#,
        #"{"type":"message.edit","id":6,"message":"m1","text":"\u0000"}"#,
    ])
    func nulInText(json: String) {
        guard case .failure(let failure) = decode(json) else { Issue.record("accepted"); return }
        #expect(failure.error.code == .badRequest)
        #expect(failure.error.message.contains("'text'") && failure.error.message.contains("U+0000"))
        #expect(failure.id == 6)
    }

    @Test("missing fields and empty text are bad_request")
    func missing() {
        for json in [#"{"type":"dm","id":1}"#, #"{"type":"send","id":1,"conversation":"c1","clientMessageId":"k","text":""}"#,
                     #"{"type":"ack","id":1}"#, #"{"type":"history","id":1,"conversation":"c1","limit":0}"#] {
            guard case .failure(let failure) = decode(json) else { Issue.record("accepted \(json)"); continue }
            #expect(failure.error.code == .badRequest, "\(json)")
        }
    }
    @Test("N1: a mute names its end by 'until' or by 'minutes' (on the server's clock), never both; minutes are 1 to a year")
    func muteEnd() {
        guard case .success(let frame) = decode(#"{"type":"mute","id":4,"conversation":"c1","minutes":90}"#) else { Issue.record("refused"); return }
        #expect(frame.request == .mute(conversation: "c1", until: nil, minutes: 90))
        for json in [#"{"type":"mute","id":4,"conversation":"c1","minutes":90,"until":5}"#, #"{"type":"mute","id":4,"conversation":"c1","minutes":0}"#,
                     #"{"type":"mute","id":4,"conversation":"c1","minutes":525601}"#, #"{"type":"mute","id":4,"conversation":"c1","until":0}"#] {
            guard case .failure(let failure) = decode(json) else { Issue.record("accepted \(json)"); continue }
            #expect(failure.error.code == .badRequest, "\(json)")
            #expect(failure.id == 4)
        }
    }
}

@Suite("herald.v1 server frames")
struct ServerFrameTests {
    @Test("U7/R3: a shared event body gets each user's seq spliced in and decodes with it")
    func sequenceSplice() throws {
        var event = EventFrame(event: .read)
        event.conversationId = "c1"
        event.messages = ["m1"]
        event.unread = ["c1": 0]
        event.badge = 0
        let body = event.encodeBody()
        for seq in [1 as Int64, 99, 123_456] {
            guard case .event(let decoded) = try ServerFrame.decode(EventFrame.withSequence(body, seq: seq)).get() else {
                Issue.record("not an event")
                return
            }
            #expect(decoded.seq == seq)
            #expect(decoded.messages == ["m1"])
            #expect(decoded.badge == 0)
        }
    }

    @Test("responses round trip, failures carry their code")
    func responses() throws {
        let failure = ResponseFrame.failure(id: 9, ErrorInfo(.notParticipant, "no such conversation"))
        #expect(try ServerFrame.decode(failure.encode()).get() == .response(failure))
    }

}

@Suite("herald.v1 group change requests (G1-G3, G5)")
struct GroupChangeDecodingTests {
    private func code(_ json: String) -> ErrorCode? {
        guard case .failure(let failure) = RequestFrame.decode(Array(json.utf8)) else { return nil }
        return failure.error.code
    }

    @Test("G1: a new title follows the group title rule: no controls, line breaks or bidi overrides, not empty")
    func renameTitle() {
        #expect(code(#"{"type":"group.rename","id":1,"conversation":"c2","title":"Team B"}"#) == nil)
        #expect(code(#"{"type":"group.rename","id":1,"conversation":"c2","title":"evil\u001b[2J"}"#) == .badRequest)
        #expect(code(#"{"type":"group.rename","id":1,"conversation":"c2","title":"a\u202Eb"}"#) == .badRequest)
        #expect(code(#"{"type":"group.rename","id":1,"conversation":"c2","title":""}"#) == .badRequest)
        #expect(code(#"{"type":"group.rename","id":1,"conversation":"c2"}"#) == .badRequest)
    }

    @Test("G2, G3: the member is a user id; G5: a client never sends a system line")
    func memberAndSystemKind() {
        #expect(code(#"{"type":"group.add","id":1,"conversation":"c2","user":"dave"}"#) == nil)
        #expect(code(#"{"type":"group.add","id":1,"conversation":"c2","user":"no spaces"}"#) == .badRequest)
        #expect(code(#"{"type":"group.remove","id":1,"conversation":"c2"}"#) == .badRequest)
        #expect(code(#"{"type":"send","id":1,"conversation":"c1","clientMessageId":"k","kind":"system","text":"Alice added Mallory"}"#) == .badRequest)
    }
}
