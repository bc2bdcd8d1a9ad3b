import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// R4: SIGKILL at random moments while several clients pipeline acknowledged sends. Real binary.
@Suite("Hardening: crash safety (binary)", .serialized)
struct HardeningCrashTests {
    static let writers = 4
    static let perWriter = 2_500
    static let window = 25

    /// One writer's progress across server lives: the next unacknowledged position and what was acknowledged.
    final class Writer: @unchecked Sendable {
        // @unchecked: used by one thread at a time (a cycle's writer thread, then the test thread after `join`).
        let user: String
        let token: String
        var next = 0
        var acknowledged: [String: String] = [:]  // clientMessageId -> message id
        var mismatched: [String] = []

        init(user: String, token: String) {
            self.user = user
            self.token = token
        }

        func cid(_ index: Int) -> String { "\(user)-\(index)" }

        /// Sends windows until done or the connection dies; a window cut short is resent whole next time (same ids).
        func run(port: Int, conversation: String, acked: SharedTally) {
            guard let client = try? SyncTestClient(port: port, token: token, timeoutMilliseconds: 10_000),
                  (try? client.request(#"{"type":"sync"}"#)) != nil else { return }
            defer { client.close() }
            var requestId = 1_000
            while next < HardeningCrashTests.perWriter {
                let range = next..<min(next + HardeningCrashTests.window, HardeningCrashTests.perWriter)
                var inFlight: [Int: String] = [:]
                for index in range {
                    requestId += 1
                    inFlight[requestId] = cid(index)
                    guard (try? client.sendRaw(#"{"type":"send","id":\#(requestId),"conversation":"\#(conversation)","clientMessageId":"\#(cid(index))","text":"\#(cid(index))"}"#)) != nil
                    else { return }
                }
                while !inFlight.isEmpty {
                    guard let response = try? client.response(id: nil, orAnyOf: Set(inFlight.keys)), let id = response.id,
                          let cid = inFlight.removeValue(forKey: id) else { return }
                    guard response.ok, let message = response.message else { continue }
                    if let earlier = acknowledged[cid] {
                        // R4: a retry of an acknowledged send is a duplicate with the same id.
                        if earlier != message.id || response.duplicate != true { mismatched.append(cid) }
                    } else {
                        acknowledged[cid] = message.id
                        acked.add(1)
                    }
                }
                next = range.upperBound
            }
        }
    }

    @Test("R4: SIGKILL at random moments during 10,000 pipelined sends from 4 clients over 4 restarts: every acknowledged message stored once, integrity_check ok")
    func killsDuringPipelinedSends() throws {
        var servers: [ServerHarness] = []
        defer { for server in servers { server.stop() } }
        let first = try ServerHarness.start(["--push-grace-seconds", "0", "--sync-send-rate", "0"])
        servers.append(first)
        let db = first.databasePath
        let writers = try (0..<Self.writers).map { Writer(user: "w\($0)", token: try Hardening.token(first, "w\($0)")) }
        let setup = try SyncTestClient(port: first.port, token: writers[0].token)
        try setup.request(#"{"type":"sync"}"#)
        let members = writers.dropFirst().map { "\"\($0.user)\"" }.joined(separator: ",")
        let group = try #require(try setup.request(#"{"type":"group","title":"crash","members":[\#(members)]}"#).conversation?.id)
        setup.close()

        var generator = SystemRandomNumberGenerator()
        var kills = 0
        for cycle in 0..<5 {
            let server = cycle == 0 ? first : try ServerHarness.start(["--push-grace-seconds", "0", "--sync-send-rate", "0", "--db", db])
            if cycle > 0 { servers.append(server) }
            let acked = SharedTally(0)
            let done = DispatchGroup()
            for writer in writers {
                done.enter()
                Thread.detachNewThread {
                    writer.run(port: server.port, conversation: group, acked: acked)
                    done.leave()
                }
            }
            if cycle < 4 {
                // Kill once a random share of what is left has been acknowledged: mid-stream, batches in flight.
                let left = writers.reduce(0) { $0 + Self.perWriter - $1.next }
                let threshold = Int.random(in: left / 10...left / 3, using: &generator)
                _ = Hardening.eventually(timeoutMs: 60_000) { acked.value >= threshold }
                server.send(signal: SIGKILL)
                kills += 1
            }
            #expect(done.wait(timeout: .now() + 120) == .success)
            if cycle < 4 { #expect(server.waitForExit(timeoutMilliseconds: 5_000) != nil && server.terminatedBySignal) }
        }
        #expect(kills == 4)
        let total = writers.reduce(0) { $0 + $1.acknowledged.count }
        #expect(total == Self.writers * Self.perWriter, "every send was eventually acknowledged")
        #expect(writers.allSatisfy { $0.mismatched.isEmpty }, "a retried acknowledged send came back as a new message")

        // Read everything back through the last server.
        let reader = try SyncTestClient(port: servers[servers.count - 1].port, token: writers[0].token, timeoutMilliseconds: 20_000)
        try reader.request(#"{"type":"sync"}"#)
        var stored: [MessageInfo] = []
        var before: String?
        while true {
            let page = try reader.request(#"{"type":"history","conversation":"\#(group)","limit":200\#(before.map { #","before":"\#($0)""# } ?? "")}"#)
            stored += page.messages ?? []
            guard page.hasMore == true, let last = page.messages?.last else { break }
            before = last.id
        }
        reader.close()
        let byClientId = Dictionary(grouping: stored, by: { $0.clientMessageId ?? "" })
        #expect(byClientId.values.allSatisfy { $0.count == 1 }, "no message stored twice")
        var missing = 0
        for writer in writers {
            for (cid, id) in writer.acknowledged where byClientId[cid]?.first?.id != id { missing += 1 }
        }
        #expect(missing == 0, "\(missing) acknowledged messages missing")
        #expect(stored.count == Self.writers * Self.perWriter)

        for server in servers { server.stop() }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        check.arguments = [db, "PRAGMA integrity_check;"]
        let pipe = Pipe()
        check.standardOutput = pipe
        try check.run()
        check.waitUntilExit()
        #expect(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    }
}
