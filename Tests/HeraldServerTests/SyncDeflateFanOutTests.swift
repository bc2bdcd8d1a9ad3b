import Foundation
import HeraldDeflate
import HeraldTestSupport
import HeraldWebSocket
import Testing

/// One group message is ONE fan-out whose receivers each carry their own stream seq; sessions that negotiated
/// permessage-deflate get a whole frame built and deflated per seq. A frame reused across two seqs would hand a member
/// another member's position in the stream.
@Suite("Sync fan-out with permessage-deflate: per-member seqs (R1a, R3, RFC 7692)")
struct SyncDeflateFanOutTests {
    typealias Wire = InteropWireBytesTests

    /// A connected, synced member and the stream events it has read so far.
    struct Member {
        let client: RawWebSocketClient
        let deflate: PerMessageDeflate?
        var tally = Wire.Tally()
        var events: [(seq: Int64, frame: [String: Any], compressed: Bool)] = []

        /// Reads one frame, keeping it if it is a stream event.
        mutating func read() throws -> [String: Any] {
            let compressedBefore = tally.compressedFrames
            let frame = Wire.object(try Wire.read(client, deflate, into: &tally))
            if frame["type"] as? String == "event", let seq = (frame["seq"] as? NSNumber)?.int64Value {
                events.append((seq, frame, tally.compressedFrames > compressedBefore))
            }
            return frame
        }

        var message: (seq: Int64, frame: [String: Any], compressed: Bool)? {
            events.first { $0.frame["event"] as? String == "message" }
        }
    }

    @Test("R1a/R3: a group message reaches each member's compressed session with that member's next seq")
    func membersGetTheirOwnSeq() throws {
        // One loop, so all three sessions are in the same fan-out call.
        let server = try ServerHarness.start(["--threads", "1"])
        defer { server.stop() }
        var members: [String: Member] = [:]
        for user in ["alice", "bob", "carol"] {
            let (client, deflate) = try Wire.connect(port: server.port, token: try Hardening.token(server, user), compress: true)
            try #require(deflate != nil, "permessage-deflate was negotiated")
            var member = Member(client: client, deflate: deflate)
            try client.sendText(#"{"type":"sync","id":1}"#)
            _ = try Wire.response(client, deflate, id: 1, into: &member.tally)
            members[user] = member
        }
        /// Sends a request as `user` and reads up to its response, keeping the stream events seen on the way.
        func request(_ user: String, id: Int, _ json: String) throws -> [String: Any] {
            var member = try #require(members[user])
            defer { members[user] = member }
            try member.client.sendText(json)
            while true {
                let frame = try member.read()
                if frame["type"] as? String == "response", frame["id"] as? Int == id { return frame }
            }
        }
        // Streams of different lengths: bob and carol, then alice and bob, have a DM first.
        _ = try request("bob", id: 2, #"{"type":"dm","id":2,"user":"carol"}"#)
        _ = try request("alice", id: 2, #"{"type":"dm","id":2,"user":"bob"}"#)
        let group = try request("alice", id: 3, #"{"type":"group","id":3,"title":"trip","members":["bob","carol"]}"#)
        let conversation = try #require((group["conversation"] as? [String: Any])?["id"] as? String, "group answered \(group)")
        let text = "a message long enough to be deflated: the server compresses payloads of 64 bytes and more"
        _ = try request("alice", id: 4, #"{"type":"send","id":4,"conversation":"\#(conversation)","clientMessageId":"z1","text":"\#(text)"}"#)

        var seqs: [Int64] = []
        for user in ["alice", "bob", "carol"] {
            var member = try #require(members[user])
            while member.message == nil { _ = try member.read() }
            let message = try #require(member.message)
            let streamSeqs = member.events.map(\.seq)
            #expect(zip(streamSeqs, streamSeqs.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(user): each event is the next of their own stream: \(streamSeqs)")
            #expect(message.seq == streamSeqs.last, "\(user): nothing after the message yet")
            #expect((message.frame["message"] as? [String: Any])?["text"] as? String == text, "\(user)")
            #expect(message.compressed, "\(user): the event came deflated")
            seqs.append(message.seq)
        }
        #expect(Set(seqs).count > 1, "the members' streams differ in length, so one fan-out carried several seqs: \(seqs)")
    }
}
