import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// A storage fault. The real fault is a file-size limit (RLIMIT_FSIZE, set on the running server with
/// prlimit(2)): every write that would extend past it fails with EFBIG, exactly like a full disk or quota, and reads
/// are untouched. (Read-only remounts and tiny tmpfs mounts need privileges a test does not have; chmod does not
/// stop root.) The server ignores SIGXFSZ so the fault reaches SQLite as a failed write.
@Suite("Hardening: storage faults (binary)", .serialized)
struct HardeningStorageTests {
    /// prlimit(1) (util-linux) sets the running server's soft RLIMIT_FSIZE; nil bytes lifts it.
    static func setFileSizeLimit(pid: Int32, bytes: Int?) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = ["--pid", String(pid), "--fsize=\(bytes.map(String.init) ?? "unlimited"):unlimited"]
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    @Test("A database that cannot grow: sends answer unavailable (nothing acknowledged, nothing stored), reads keep working, and it recovers")
    func databaseCannotGrow() throws {
        // The log goes through a pipe: the file-size limit below would otherwise stop the server's log file as well.
        let server = try ServerHarness.start(["--push-grace-seconds", "0"], standardErrorThroughPipe: true)
        defer { server.stop() }
        let alice = try SyncTestClient(port: server.port, token: try Hardening.token(server, "alice"))
        let bob = try SyncTestClient(port: server.port, token: try Hardening.token(server, "bob"))
        try alice.request(#"{"type":"sync"}"#)
        try bob.request(#"{"type":"sync"}"#)
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        #expect(try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"before","text":"before"}"#).ok)

        try #require(Self.setFileSizeLimit(pid: server.pid, bytes: 1), "prlimit on the server")
        var refused = 0
        for n in 0..<5 {
            let response = try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"lost\#(n)","text":"lost \#(n)"}"#)
            #expect(!response.ok && response.error?.code == .unavailable, "\(String(describing: response.error))")
            if response.error?.code == .unavailable { refused += 1 }
        }
        #expect(refused == 5)
        // The operator hears it: a warning with the store's reason, not only `unavailable` answers and a metric.
        #expect(Hardening.eventually {
            server.standardError.split(separator: "\n").contains { $0.contains(" warning ") && $0.contains("kind=store_write_failed") && $0.contains("store write failed") }
        }, "no store-failure warning in: \(server.standardError.suffix(2_000))")
        // Reads still work, on both devices, and show nothing that was refused.
        #expect(try alice.request(#"{"type":"history","conversation":"\#(c)"}"#).messages?.map(\.text) == ["before"])
        #expect(try bob.request(#"{"type":"conversations"}"#).conversations?.first?.lastMessage?.text == "before")
        let refusedEvents = bob.settle(milliseconds: 200).filter { event in event.event == .message && event.message?.text != "before" }
        #expect(refusedEvents.isEmpty, "no event for a refused send")

        try #require(Self.setFileSizeLimit(pid: server.pid, bytes: nil))
        #expect(try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"lost0","text":"lost 0"}"#).duplicate != true,
                "a refused send was not stored, so its retry is new")
        #expect(try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"after","text":"after"}"#).ok)
        #expect(try alice.request(#"{"type":"history","conversation":"\#(c)"}"#).messages?.compactMap(\.text).sorted() == ["after", "before", "lost 0"])
        #expect(server.isRunning)
        #expect((try Hardening.metrics(port: server.port)["herald_sync_errors_total{code=unavailable}"] ?? 0) >= 5)
        server.stop()
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        check.arguments = [server.databasePath, "PRAGMA integrity_check;"]
        let pipe = Pipe()
        check.standardOutput = pipe
        try check.run()
        check.waitUntilExit()
        #expect(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    }
}
