import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldStore
import HeraldTestSupport
import Testing

/// Memory and lock-out findings of the security review: what one connection may make the server build and queue.
@Suite("Security: requests in flight, answer sizes, large snapshots (binary)", .serialized)
struct SecurityFlowControlTests {
    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    @Test("1,000 history requests (limit 200, long messages) pipelined on one connection: server memory stays within 64 MiB of idle, another user's request is answered in under 100 ms (median), and every request is answered in order")
    func pipelinedLargeRequestsAreFlowControlled() throws {
        let server = try ServerHarness.start(["--sync-send-rate", "0", "--push-grace-seconds", "0"])
        defer { server.stop() }
        let alice = try SyncTestClient(port: server.port, token: try Hardening.token(server, "alice"), timeoutMilliseconds: 30_000)
        defer { alice.close() }
        let bob = try SyncTestClient(port: server.port, token: try Hardening.token(server, "bob"))
        defer { bob.close() }
        try alice.request(#"{"type":"sync"}"#)
        try bob.request(#"{"type":"sync"}"#)
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        let text = String(repeating: "x", count: 4_000)
        for n in 0..<200 { try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"h-\#(n)","text":"\#(text)"}"#) }
        _ = bob.settle(milliseconds: 300)
        let idleKiB = ProcessMemory.residentKiB(server.pid)

        let count = 1_000
        var flood: [UInt8] = []
        for id in 0..<count {
            flood += RawWebSocketClient.frame(opcode: 0x1, payload: Array(#"{"type":"history","id":\#(10_000 + id),"conversation":"\#(c)","limit":200}"#.utf8))
        }
        try alice.raw.send(flood)

        var latencies: [Double] = []
        var peakKiB = idleKiB
        for _ in 0..<5 {
            let started = Date()
            #expect(try bob.request(#"{"type":"conversations"}"#).ok)
            latencies.append(Date().timeIntervalSince(started) * 1000)
            peakKiB = max(peakKiB, ProcessMemory.residentKiB(server.pid))
            usleep(50_000)
        }
        var answered = 0
        var lastId = 0
        while answered < count {
            let message = try alice.raw.readMessage(timeoutMilliseconds: 30_000)
            guard case .success(.response(let response)) = ServerFrame.decode(message.payload) else { continue }
            let id = try #require(response.id)
            #expect(id > lastId, "answers come in request order")
            lastId = id
            #expect(response.ok && response.hasMore == true, "an answer sized to its byte budget says there is more")
            #expect((response.messages?.count ?? 0) < 200 && (response.messages?.count ?? 0) > 10)
            answered += 1
            if answered % 100 == 0 { peakKiB = max(peakKiB, ProcessMemory.residentKiB(server.pid)) }
        }
        #expect(answered == count, "no request dropped and the connection was never closed as a slow consumer")
        #expect(peakKiB - idleKiB < 64 * 1024, "resident \(idleKiB) KiB idle, \(peakKiB) KiB at peak")
        #expect(Self.median(latencies) < 100, "bob's latencies: \(latencies) ms")
        #expect(server.isRunning)
    }

    @Test("A user added to 500 groups of 1,000 members still syncs a new device: the snapshot names 64 participants per group (members pages the rest) and never makes its own device a slow consumer")
    func largeSnapshotIsNotASlowConsumer() throws {
        let server = try ServerHarness.start(["--sync-send-rate", "0", "--sync-create-rate", "0", "--push-grace-seconds", "0", "--max-queued-bytes", "4194304"])
        defer { server.stop() }
        let members = (0..<998).map { "m\($0)" }
        do {
            // Users straight into the server's own file (WAL lets a second writer in): 1,000 tokens would take minutes.
            let store = try SQLiteStore(path: server.databasePath)
            defer { store.close() }
            try store.transaction { for id in members { try store.upsertUser(id: id, name: "Member \(id)") } }
        }
        let victimToken = try Hardening.token(server, "victim")
        let attacker = try SyncTestClient(port: server.port, token: try Hardening.token(server, "attacker"), timeoutMilliseconds: 60_000)
        defer { attacker.close() }
        try attacker.request(#"{"type":"sync"}"#)
        let list = (members + ["victim"]).map { "\"\($0)\"" }.joined(separator: ",")
        for n in 0..<500 {
            let response = try attacker.request(#"{"type":"group","title":"spam \#(n)","members":[\#(list)]}"#)
            try #require(response.ok, "group \(n): \(String(describing: response.error))")
        }
        let device = try SyncTestClient(port: server.port, token: victimToken, timeoutMilliseconds: 60_000)
        defer { device.close() }
        let snapshot = try device.request(#"{"type":"sync"}"#)
        #expect(snapshot.mode == .snapshot)
        #expect(snapshot.conversations?.count == 500)
        // Sized before it is built: each big group names its first 64 participants and counts the rest.
        #expect(snapshot.conversations?.allSatisfy { $0.participants.count == 64 && $0.participantCount == 1_000 } == true)
        let snapshotBytes = snapshot.encode().count
        #expect(snapshotBytes < 4 << 20, "the snapshot fits under the slow-consumer cap: \(snapshotBytes) bytes")
        // `members` pages through all of them, by id.
        var everyone: [String] = []
        var cursor: String?
        let first = try #require(snapshot.conversations?.first?.id)
        repeat {
            let cursorField = cursor.map { #","cursor":"\#($0)""# } ?? ""
            let page = try device.request(#"{"type":"members","conversation":"\#(first)","limit":300\#(cursorField)}"#)
            let ids = try #require(page.participants).map(\.id)
            everyone += ids
            cursor = page.hasMore == true ? ids.last : nil
        } while cursor != nil
        #expect(everyone.count == 1_000 && Set(everyone).count == 1_000 && everyone.contains("victim"))
        // Live afterwards: a message in one of the groups arrives.
        let group = try #require(snapshot.conversations?.first?.id)
        try attacker.request(#"{"type":"send","conversation":"\#(group)","clientMessageId":"after","text":"still here"}"#)
        #expect(try device.event(timeoutMilliseconds: 10_000) { $0.event == .message }.message?.text == "still here")
    }
}
