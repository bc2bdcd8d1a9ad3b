import Foundation
import Glibc
import HeraldClient
import HeraldProtocol
import HeraldTestSupport
import Testing

/// R3 with flow control, end to end: a `herald` device that stops reading is closed by the server as a slow
/// consumer; when it comes back its backlog is larger than the server's send queue, so the server replays it in
/// bounded pages (`"more":true`) and the client follows them. Real `herald-server` and `herald` processes.
@Suite("herald resume through bounded pages (R3)", .serialized)
struct ClientResumeTests {
    static let messageCount = 240

    /// A counter from the server's `GET /metrics` (0 when absent).
    static func metric(_ server: TestServer, _ name: String) throws -> Double {
        let client = try RawWebSocketClient(port: server.port)
        defer { client.close() }
        try client.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let response = try client.readHTTPResponse()
        for line in response.body.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.split(separator: " ").last ?? "") ?? 0
        }
        return 0
    }

    @Test("R3/R1a: a device closed as a slow consumer while > 1 page of messages arrives resumes through several pages, prints each missed message exactly once and in order, then connected")
    func slowConsumerResumesPageByPage() throws {
        // A 128 KiB send queue (so resume pages are 32 KiB, about ten of these messages) and a 64 KiB kernel send
        // buffer, so a stopped reader is closed after a few hundred KiB.
        let server = try TestServer(pushGrace: 0, arguments: [
            "--max-message-bytes", "65536", "--max-queued-bytes", "131072", "--socket-send-buffer-bytes", "65536", "--sync-send-rate", "0",
        ])
        // Alice without permessage-deflate: the repetitive test text would otherwise shrink ~30 times on the wire.
        let alice = try server.client("alice", arguments: ["--no-compression"])
        let bob = try server.client("bob")
        let conversation = try #require(try bob.ok("dm alice").string("conversation"))
        try alice.waitEvent("conversation") { $0.string("conversation") == conversation }
        try alice.ok("background")  // no toasts for 240 messages; pushes are not part of the stream
        let mark = alice.mark

        // Alice's process stops reading (SIGSTOP) while bob sends ~3 KB messages: far more than queue + buffers.
        alice.child.send(signal: SIGSTOP)
        var stopped = true
        defer { if stopped { alice.child.send(signal: SIGCONT) } }
        let filler = String(repeating: "page-by-page resume text ", count: 120) + "end"
        var sent: [String] = []
        for index in 0..<Self.messageCount {
            let text = "m\(index) \(filler)"
            sent.append(text)
            try bob.ok("send \(conversation) \(text)", timeout: .seconds(20))
        }
        let closed = try Self.metric(server, "herald_slow_consumer_closes_total")
        #expect(closed >= 1, "the stopped reader was closed at its queue bound")
        let resumesBefore = try Self.metric(server, "herald_resumes_total")

        alice.child.send(signal: SIGCONT)
        stopped = false
        try alice.waitEvent("connected", after: mark, timeout: .seconds(60)) { $0.string("mode") == "resume" }

        let after = Array(alice.output.lines.dropFirst(mark).compactMap(OutputLine.init))
        let messages = after.filter { $0.type == "event" && $0.event == "message" && $0.string("conversation") == conversation }
        #expect(messages.compactMap { $0.string("text") } == sent, "every message exactly once, in order")
        let seqs = messages.compactMap { $0.int("seq") }
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "stream order without repeats")
        let connectedIndex = after.lastIndex { $0.type == "event" && $0.event == "connected" }
        let lastMessageIndex = after.lastIndex { $0.type == "event" && $0.event == "message" }
        #expect(after.filter { $0.type == "event" && $0.event == "connected" }.count == 1, "connected once, after the final page")
        if let connectedIndex, let lastMessageIndex { #expect(lastMessageIndex < connectedIndex, "the backlog before connected (R1a)") }

        let pages = try Self.metric(server, "herald_resumes_total") - resumesBefore
        #expect(pages >= 3, "several bounded pages, got \(pages)")
        #expect(alice.stderrLines.filter { $0.contains("more to come") }.count >= 2, "\(alice.stderrText)")
        #expect(try Self.metric(server, "herald_slow_consumer_closes_total") == closed, "the resume itself was not closed as a slow consumer")

        // Live afterwards: one more message arrives once.
        let liveMark = alice.mark
        try bob.ok("send \(conversation) live after resume")
        try alice.waitEvent("message", after: liveMark) { $0.string("text") == "live after resume" }
        #expect(try alice.state().bool("connected") == true)
        #expect(alice.quit() == 0)
        #expect(bob.quit() == 0)
    }
}

/// The client's side of flow-controlled resume, sans-IO: a `more` page asks for the next one and is not live.
@Suite("Client core: resume pages (R3, R1a)")
struct ClientResumePageTests {
    @Test("R3/R1a: a resume answered with more asks for the next page after its latest, prints the page's messages, and stays offline (requests queued) until the final page prints connected")
    func followsMorePages() throws {
        var h = CoreHarness()
        h.connect()
        h.core.connectionLost(now: h.now, reason: "slow consumer")
        h.collect()
        h.command("state")
        h.requests = []
        h.core.connectionOpened(now: h.now)
        h.collect()
        #expect(h.requests.map(\.request) == [.sync(after: 5)])
        let connectedBefore = h.events("connected").count

        // Page 1: seq 6-7, then {"mode":"resume","latest":7,"more":true}.
        h.event({ $0.seq = 6; $0.message = CoreHarness.message("m6", at: 6) }, .message)
        h.event({ $0.seq = 7; $0.message = CoreHarness.message("m7", at: 7) }, .message)
        h.respond {
            $0.mode = .resume
            $0.latest = 7
            $0.more = true
        }
        #expect(h.requests.last?.request == .sync(after: 7), "the next page starts after the last replayed seq")
        #expect(h.events("connected").count == connectedBefore, "not live before the final page")
        #expect(h.state()["connected"] == false)

        // A command that needs the server waits in the queue meanwhile.
        let sentBefore = h.requests.count
        h.command("send c1 queued while paging")
        #expect(h.requests.count == sentBefore, "nothing but sync goes out before the stream is live")

        // Final page: seq 8, then a response without more.
        h.event({ $0.seq = 8; $0.message = CoreHarness.message("m8", at: 8) }, .message)
        h.respond {
            $0.mode = .resume
            $0.latest = 8
        }
        #expect(h.events("connected").count == connectedBefore + 1)
        #expect(h.events("connected").last?["latest"] == .int(8))
        #expect(h.events("message").compactMap { $0["message"] }.suffix(3) == [.string("m6"), .string("m7"), .string("m8")])
        let sends = h.requests.filter { $0.request.typeName == "send" }
        #expect(sends.count == 1, "the queued send goes out once live")
        #expect(h.state()["connected"] == true)
    }
}
