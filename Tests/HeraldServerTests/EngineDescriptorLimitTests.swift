import Foundation
import Glibc
import HeraldTestSupport
import Testing

/// The accept trap at the open-files limit: at that limit, accept4 fails with EMFILE while the pending connection stays in
/// the kernel's queue, so a level-triggered listener left armed would wake the loop forever. The server must
/// stop polling the listener for a tick instead, and accept again once a descriptor is free.
///
/// Runs against a separate server process whose own limit is lowered with prlimit: lowering the limit of the
/// test runner itself would starve every other test running beside this one.
@Suite("Engine: accept at the descriptor limit")
struct EngineDescriptorLimitTests {
    @Test("Accept at EMFILE pauses the listener instead of spinning, then resumes")
    func acceptAtDescriptorLimitDoesNotSpin() throws {
        let server = try ServerHarness.start(["--bench-endpoints", "--threads", "1", "--tick-ms", "10"])
        defer { server.stop() }
        // Allow exactly one more descriptor than the server holds now: room for one accepted connection.
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/fd").count
        let limit = try runToCompletion("/usr/bin/prlimit", ["--pid", "\(server.pid)", "--nofile=\(open + 1):\(open + 1)"])
        try #require(limit == 0, "prlimit failed")

        var holder: RawWebSocketClient? = try RawWebSocketClient(port: server.port)
        try holder?.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n")  // accepted, head unfinished
        Thread.sleep(forTimeInterval: 0.2)
        // This one completes its TCP handshake in the kernel, but accept4 gets EMFILE.
        let waiting = try RawWebSocketClient(port: server.port, timeoutMilliseconds: 10_000)
        try waiting.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")

        let before = try cpuTicks(of: server.pid)
        Thread.sleep(forTimeInterval: 1.0)
        let spent = try cpuTicks(of: server.pid) - before
        // A listener left armed at EMFILE burns a whole core: ~100 ticks (of 10 ms) in this second.
        #expect(spent < 40, "server used \(spent * 10) ms of CPU in 1 s while at the limit")
        // Logged at warning (rate-limited), not only counted: the operator must learn the limit is too low.
        let logged = Hardening.eventually {
            server.standardError.split(separator: "\n").contains { $0.contains(" warning ") && $0.contains("kind=descriptors_exhausted") && $0.contains("errno=EMFILE") }
        }
        #expect(logged, "no descriptor-exhaustion warning in: \(server.standardError.suffix(2_000))")

        holder?.close()
        holder = nil
        let response = try waiting.readHTTPResponse()
        #expect(response.status == 200, "the waiting connection is accepted once a descriptor is free")
        #expect(server.isRunning)
    }
}

/// utime + stime of a process, in clock ticks (1/100 s on Linux).
private func cpuTicks(of pid: Int32) throws -> Int {
    let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 overall.
    guard let close = stat.lastIndex(of: ")") else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
    return user + system
}

/// Runs a command and returns its exit status.
private func runToCompletion(_ path: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
