import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// R3: a receiver that stops reading is closed once its bounded queue is full, without slowing the others
/// or growing the server, and gets everything it missed, once, when it resumes (page by page). Real binary.
@Suite("Hardening: slow consumers (binary)", .serialized)
struct HardeningSlowConsumerTests {
    static let activeCount = 200
    static let messageCount = 160

    /// Reads `count` message events (of the group) on its own thread and returns their (seq, clientMessageId) in arrival order.
    final class Reader: @unchecked Sendable {
        // @unchecked: `received`/`failure` are written by the reader thread before `done` is signalled, read after.
        let client: SyncTestClient
        var received: [(seq: Int64, cid: String)] = []
        var failure: String?
        let done = DispatchSemaphore(value: 0)

        init(client: SyncTestClient) { self.client = client }

        func start(expecting count: Int) {
            Thread.detachNewThread { [self] in
                do {
                    while received.count < count {
                        let event = try client.event(timeoutMilliseconds: 60_000) { $0.event == .message }
                        received.append((event.seq ?? -1, event.message?.clientMessageId ?? ""))
                    }
                } catch {
                    failure = "\(error) after \(received.count)"
                }
                done.signal()
            }
        }
    }

    @Test("One stalled /sync reader among 200 active in a group: it is closed at its queue bound, the others get every message in order, RSS stays bounded, and it resumes with its last seq through bounded pages, getting each missed message once")
    func stalledReaderAmongActiveOnes() throws {
        let limit = FileDescriptorLimit.raiseToHardLimit()
        try #require(limit >= 600)
        // A 128 KiB queue bound (one maximal 64 KiB message fits twice) and a 64 KiB kernel send buffer (loopback's
        // autotuning would otherwise start near 2.5 MiB), so the stalled reader overflows after ~40 messages. The 202
        // devices all come from 127.0.0.1: past the 64 one person's devices need, so the address gets room for them.
        let server = try ServerHarness.start(["--max-message-bytes", "65536", "--max-queued-bytes", "131072", "--socket-send-buffer-bytes", "65536", "--sync-send-rate", "0", "--push-grace-seconds", "0",
                                              "--max-connections-per-ip", "300"])
        defer { server.stop() }
        let users = (0..<Self.activeCount).map { "u\($0)" }
        let alice = try SyncTestClient(port: server.port, token: try Hardening.token(server, "alice"), timeoutMilliseconds: 30_000)
        try alice.request(#"{"type":"sync"}"#)
        var tokens: [String: String] = [:]
        for user in users + ["slow"] { tokens[user] = try Hardening.token(server, user) }
        let members = (users + ["slow"]).map { "\"\($0)\"" }.joined(separator: ",")
        let group = try #require(try alice.request(#"{"type":"group","title":"load","members":[\#(members)]}"#).conversation?.id)

        var readers: [Reader] = []
        for user in users {
            let client = try SyncTestClient(port: server.port, token: tokens[user]!, timeoutMilliseconds: 60_000)
            try client.request(#"{"type":"sync"}"#)
            readers.append(Reader(client: client))
        }
        // The stalled reader: a 4 KiB receive buffer from before the handshake (no autotuning), syncs, then never reads.
        let slow = try StalledSyncClient(port: server.port, token: tokens["slow"]!)
        let latest = try slow.syncLatest()
        for reader in readers { reader.start(expecting: Self.messageCount) }

        let baselineKiB = ProcessMemory.residentKiB(server.pid)
        var peakKiB = baselineKiB
        let text = String(repeating: "load-test text ", count: 200)  // ~3 KB per message
        var sent: [String] = []
        for window in 0..<(Self.messageCount / 10) {
            var ids: [Int] = []
            for n in 0..<10 {
                let index = window * 10 + n
                let cid = "m\(index)"
                sent.append(cid)
                ids.append(10_000 + index)
                try alice.sendRaw(#"{"type":"send","id":\#(10_000 + index),"conversation":"\#(group)","clientMessageId":"\#(cid)","text":"\#(cid) \#(text)"}"#)
            }
            for id in ids { #expect(try alice.response(id: id).ok) }
            peakKiB = max(peakKiB, ProcessMemory.residentKiB(server.pid))
        }
        for reader in readers { #expect(reader.done.wait(timeout: .now() + 90) == .success) }
        peakKiB = max(peakKiB, ProcessMemory.residentKiB(server.pid))

        var wrong = 0
        for reader in readers {
            if let failure = reader.failure { Issue.record("active reader failed: \(failure)"); wrong += 1; continue }
            if reader.received.map(\.cid) != sent { wrong += 1 }
            if reader.received.map(\.seq) != reader.received.map(\.seq).sorted() { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) active readers missed, duplicated or reordered messages")
        // 200 readers × 120 × 3 KB went out; a server that buffered for the stalled reader or anyone else would grow far more.
        #expect(peakKiB < 400 * 1024, "server RSS peaked at \(peakKiB) KiB (baseline \(baselineKiB) KiB)")
        let metrics = try Hardening.metrics(port: server.port)
        #expect((metrics["herald_slow_consumer_closes_total"] ?? 0) >= 1, "the stalled reader was closed at its queue bound")
        #expect((metrics["herald_messages_stored_total"] ?? 0) == Double(Self.messageCount))
        #expect((metrics["herald_fanout_deliveries_total"] ?? 0) >= Double(Self.activeCount * Self.messageCount))

        // The stalled reader's connection is gone; it comes back with the last seq it knew and gets every message, once.
        #expect(slow.isClosedByServer(), "the server closed the stalled reader")
        slow.close()
        // R3 with flow control: the backlog (larger than the queue bound, as it always is for a reader closed for
        // slowness) comes in bounded pages; the client asks for the next page with the last seq of each `more` answer.
        let metricsBefore = try Hardening.metrics(port: server.port)
        let again = try SyncTestClient(port: server.port, token: tokens["slow"]!, timeoutMilliseconds: 10_000)
        var resumed = try again.request(#"{"type":"sync","after":\#(latest)}"#)
        var pages = 1
        while resumed.more == true, let cursor = resumed.latest, pages < 1_000 {
            #expect(resumed.mode == .resume)
            resumed = try again.request(#"{"type":"sync","after":\#(cursor)}"#)
            pages += 1
        }
        #expect(resumed.mode == .resume)
        #expect(resumed.more == nil, "the final page makes the device live")
        #expect(pages > 1, "a backlog over the queue bound takes more than one page")
        var after: [String] = []
        while after.count < Self.messageCount, let event = try? again.event(timeoutMilliseconds: 5_000, where: { $0.event == .message }) {
            after.append(event.message?.clientMessageId ?? "")
        }
        #expect(after == sent, "every missed message exactly once, in order")
        #expect(again.settle(milliseconds: 300).filter { $0.event == .message }.isEmpty, "nothing twice")
        let metricsAfter = try Hardening.metrics(port: server.port)
        #expect(metricsAfter["herald_slow_consumer_closes_total"] == metricsBefore["herald_slow_consumer_closes_total"],
                "the resuming reader was not closed again")
        // Live after the last page: a new message arrives once.
        try alice.sendRaw(#"{"type":"send","id":99999,"conversation":"\#(group)","clientMessageId":"live","text":"live"}"#)
        #expect(try alice.response(id: 99999).ok)
        #expect(try again.event(timeoutMilliseconds: 5_000, where: { $0.event == .message }).message?.clientMessageId == "live")
        again.close()
        for reader in readers { reader.client.close() }
    }
}

/// A /sync client that reads its `sync` response and then stops reading. Its socket gets a 4 KiB receive buffer
/// before connecting, so the kernel holds little on its behalf and the server's bounded queue is what fills.
final class StalledSyncClient {
    let fd: Int32

    init(port: Int, token: String) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &target.sin_addr)
        let connected = withUnsafePointer(to: &target) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(connected == 0)
        try write(RawWebSocketClient.upgradeRequest(path: "/sync", extraHeaders: [("Authorization", "Bearer \(token)"), ("Sec-WebSocket-Protocol", "herald.v1")]).bytes)
        let head = try read(until: { bytes in bytes.count >= 4 && Array(bytes.suffix(4)) == Array("\r\n\r\n".utf8) }, byteByByte: true)
        try #require(String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101"))
    }

    /// Sends `sync` and returns the `latest` of its response.
    func syncLatest() throws -> Int64 {
        try write(RawWebSocketClient.frame(opcode: 0x1, payload: Array(#"{"type":"sync","id":1}"#.utf8)))
        let header = try read(exactly: 2)
        var length = Int(header[1] & 0x7F)
        if length == 126 { length = try read(exactly: 2).reduce(0) { $0 << 8 | Int($1) } }
        if length == 127 { length = try read(exactly: 8).reduce(0) { $0 << 8 | Int($1) } }
        let payload = try read(exactly: length)
        guard case .success(.response(let response)) = ServerFrame.decode(payload), let latest = response.latest else {
            throw RawClientError.timeout
        }
        return latest
    }

    /// Whether the server has closed the connection (reading what it still holds until EOF or reset).
    func isClosedByServer() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 3_000) == 1 else { return false }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return true }
        }
    }

    func close() { Glibc.close(fd) }

    private func write(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        try #require(sent == bytes.count)
    }

    private func read(exactly count: Int) throws -> [UInt8] {
        try read(until: { $0.count >= count }, byteByByte: false, limit: count)
    }

    private func read(until done: ([UInt8]) -> Bool, byteByByte: Bool, limit: Int = .max) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !done(bytes) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 5_000) == 1 else { throw RawClientError.timeout }
            let want = byteByByte ? 1 : min(chunk.count, limit - bytes.count)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, want, 0) }
            guard count > 0 else { throw RawClientError.timeout }
            bytes += chunk[0..<count]
        }
        return bytes
    }
}
