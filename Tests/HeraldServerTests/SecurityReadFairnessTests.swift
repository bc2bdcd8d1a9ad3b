import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// Reads are fair: one user who floods the sync thread with expensive reads from many connections gets a turn per
/// batch (``SyncConfiguration/userBatchMicroseconds``), and another user's round trips do not queue behind the flood.
/// Against a real `herald-server`.
@Suite("Security: fair reads (binary)", .serialized)
struct SecurityReadFairnessTests {
    @Test("A user in 300 groups sending `conversations` from 20 connections, 8 in flight each, leaves another user's round trip p99 under 50 ms")
    func readFloodLeavesOthersServed() throws {
        // Without turns (--sync-user-batch-us 0) this measured p50 1,126 ms and p99 3,026 ms on a 2-core machine; with
        // them p50 7 ms and p99 11 ms.
        // The round trips are timed in three windows of 100: the whole suite runs in parallel on two cores, and a window
        // that other tests' processes crowd out says nothing about the flood. Starvation shows in every window (its
        // p50 was over a second), so the best window's p99 and every window's p50 must stay under 50 ms.
        let windows = try Self.measureVictimUnderFlood(extraArguments: [])
        let best = try #require(windows.min { $0.p99Ms < $1.p99Ms })
        // The flood keeps 160 requests in flight throughout; on a loaded machine its turns answer only a few of them
        // per window (each reads 300 groups), which is the point: it still had to be served while the victim was.
        #expect(windows.map(\.floodAnswers).reduce(0, +) >= 10, "the flood was served meanwhile: \(windows.map(\.floodAnswers)) answers to the attacker")
        #expect(best.p99Ms < 50, "victim round trips, best window: p50 \(best.p50Ms) ms, p99 \(best.p99Ms) ms over \(best.samples) samples")
        #expect(windows.allSatisfy { $0.p50Ms < 50 }, "victim p50 per window: \(windows.map(\.p50Ms)) ms")
    }

    struct Measurement {
        var samples: Int
        var p50Ms: Double
        var p99Ms: Double
        var floodAnswers: Int
    }

    /// Starts a server, puts the attacker in 300 groups, floods from 20 connections with 8 `conversations` each in
    /// flight, and times the victim's `conversations` round trips meanwhile, in three windows of 100.
    static func measureVictimUnderFlood(extraArguments: [String]) throws -> [Measurement] {
        let server = try ServerHarness.start(["--sync-create-rate", "0"] + extraArguments)
        defer { server.stop() }
        let attackerToken = try Hardening.token(server, "mallory")
        _ = try Hardening.token(server, "bob")
        let setup = try SyncTestClient(port: server.port, token: attackerToken)
        #expect(try setup.request(#"{"type":"sync"}"#).ok)
        for index in 0..<300 {
            let response = try setup.request(#"{"type":"group","title":"g\#(index)","members":["bob"]}"#)
            try #require(response.ok, "group \(index): \(String(describing: response.error))")
        }
        let victim = try SyncTestClient(port: server.port, token: try Hardening.token(server, "victor"))
        #expect(try victim.request(#"{"type":"sync"}"#).ok)

        let stop = SharedTally(0), answers = SharedTally(0), failures = SharedTally(0)
        let finished = DispatchGroup()
        let port = server.port
        for _ in 0..<20 {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
                do {
                    let client = try RawWebSocketClient.connect(
                        port: port, path: "/sync", extraHeaders: [("Authorization", "Bearer \(attackerToken)"), ("Sec-WebSocket-Protocol", "herald.v1")],
                        timeoutMilliseconds: 30_000)
                    try Self.flood(client, stop: stop, answers: answers)
                } catch {
                    failures.add(1)
                }
            }
        }
        defer { stop.add(1); _ = finished.wait(timeout: .now() + 60) }
        // Measure once the flood is flowing.
        #expect(Hardening.eventually(timeoutMs: 30_000) { answers.value >= 40 })
        var windows: [Measurement] = []
        for _ in 0..<3 {
            let answersBefore = answers.value
            var roundTrips: [Double] = []
            for _ in 0..<100 {
                let started = DispatchTime.now().uptimeNanoseconds
                #expect(try victim.request(#"{"type":"conversations"}"#).ok)
                roundTrips.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)
            }
            roundTrips.sort()
            windows.append(
                Measurement(samples: roundTrips.count, p50Ms: roundTrips[roundTrips.count / 2],
                            p99Ms: roundTrips[roundTrips.count * 99 / 100], floodAnswers: answers.value - answersBefore))
        }
        #expect(failures.value == 0, "every flooding connection stayed open")
        return windows
    }

    /// One flooding connection: `sync`, then 8 `conversations` in flight, each answer followed by the next request.
    private static func flood(_ client: RawWebSocketClient, stop: SharedTally, answers: SharedTally) throws {
        try client.sendText(#"{"id":1,"type":"sync"}"#)
        while !String(decoding: try client.readMessage().payload, as: UTF8.self).contains(#""id":1"#) {}
        var next = 2
        for _ in 0..<8 {
            try client.sendText(#"{"id":\#(next),"type":"conversations"}"#)
            next += 1
        }
        while stop.value == 0 {
            let text = String(decoding: try client.readMessage().payload, as: UTF8.self)
            guard text.hasPrefix(#"{"type":"response""#) || text.contains(#""type":"response""#) else { continue }
            answers.add(1)
            try client.sendText(#"{"id":\#(next),"type":"conversations"}"#)
            next += 1
        }
    }
}
