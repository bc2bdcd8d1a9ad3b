import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// Memory held for input that is not finished is bounded per user and for the server, and one person's devices are
/// what one user or one address may connect: against a real `herald-server`, its memory read from /proc.
@Suite("Security: input budgets and connection shares (binary)", .serialized)
struct SecurityInputBudgetTests {
    static let mebibyte = 1 << 20

    @Test("One user's 400 connections, each holding an unfinished 1 MiB message: the server grows by less than 64 MiB, the rest are closed with 1008")
    func unfinishedMessagesStayWithinTheBudget() throws {
        let limit = FileDescriptorLimit.raiseToHardLimit()
        try #require(limit >= 600, "the test needs 600 descriptors, the hard limit allows \(limit)")
        // The connection caps are lifted so that only the input budget stands between the attack and the memory.
        let server = try ServerHarness.start(["--max-connections-per-ip", "1000", "--max-connections-per-user", "1000", "--threads", "2"])
        defer { server.stop() }
        let token = try Hardening.token(server, "mallory")
        // A bystander is connected first: the attack must not take the server from other users.
        let bystander = try SyncTestClient(port: server.port, token: try Hardening.token(server, "bob"))
        #expect(try bystander.request(#"{"type":"sync"}"#).ok)
        let before = ProcessMemory.residentKiB(server.pid)
        try #require(before > 0)

        var held: [RawWebSocketClient] = []
        var refusals: [UInt16] = []
        for _ in 0..<400 {
            let client = try RawWebSocketClient.connect(
                port: server.port, path: "/sync", extraHeaders: [("Authorization", "Bearer \(token)"), ("Sec-WebSocket-Protocol", "herald.v1")],
                timeoutMilliseconds: 5_000)
            if let code = try Self.sendUnfinishedMessage(client, payloadBytes: Self.mebibyte) {
                refusals.append(code)
            } else {
                held.append(client)
            }
        }
        // Wait until the server has read every held byte (its own count of what unfinished input holds), then read its
        // memory: 400 MiB of partial messages would be resident without a budget.
        let budget = HeraldServerOptions().maxBufferedInputPerUser
        var charged = 0.0
        #expect(try Hardening.eventually(timeoutMs: 10_000) {
            // A refusal of the last bytes sent may still be on its way.
            for (index, client) in held.enumerated().reversed() {
                guard let code = try Self.closeCode(client) else { continue }
                refusals.append(code)
                held.remove(at: index)
            }
            charged = Hardening.metricsIfServed(port: server.port)?["herald_buffered_input_bytes"] ?? -1
            return charged >= Double(held.count * (Self.mebibyte - 1))
        }, "the server holds \(charged) bytes for \(held.count) unfinished messages")
        let grownMiB = (ProcessMemory.residentKiB(server.pid) - before) / 1024
        #expect(grownMiB < 64, "VmRSS grew by \(grownMiB) MiB (from \(before / 1024) MiB)")
        #expect(charged <= Double(budget), "charged \(charged) of a \(budget)-byte budget")
        #expect(held.count <= budget / Self.mebibyte, "\(held.count) unfinished messages held")
        #expect(refusals.count == 400 - held.count)
        #expect(refusals.allSatisfy { $0 == 1008 }, "RFC 6455 §7.4.1: refused with policy violation, got \(Set(refusals))")

        // The refusal was logged (rate-limited), and everyone else is still served.
        #expect(Hardening.eventually {
            server.standardError.split(separator: "\n").contains { $0.contains(" warning ") && $0.contains("kind=input_budget") && $0.contains("user=mallory") }
        }, "no input-budget warning in: \(server.standardError.suffix(2_000))")
        #expect(try bystander.request(#"{"type":"conversations"}"#).ok)
        // Closing the held connections gives the budget back.
        for client in held { client.close() }
        #expect(Hardening.eventually { Hardening.metricsIfServed(port: server.port)?["herald_buffered_input_bytes"] == 0 })
        #expect(server.isRunning)
    }

    @Test("--max-buffered-input-bytes: the server's budget refuses an unfinished message of any user past it, with 1008")
    func serverBudgetCoversEveryUser() throws {
        let server = try ServerHarness.start(["--max-buffered-input-bytes", "4194304", "--max-buffered-input-bytes-per-user", "0", "--max-message-bytes", "2097152",
                                              "--max-frame-bytes", "2097152"])
        defer { server.stop() }
        var held: [RawWebSocketClient] = []
        var refused: UInt16?
        // Users of their own, each with one 1 MiB unfinished message: the fourth or fifth passes the 4 MiB.
        for index in 0..<8 where refused == nil {
            let client = try RawWebSocketClient.connect(
                port: server.port, path: "/sync", extraHeaders: [("Authorization", "Bearer \(try Hardening.token(server, "u\(index)"))")])
            if let code = try Self.sendUnfinishedMessage(client, payloadBytes: Self.mebibyte) { refused = code } else { held.append(client) }
        }
        #expect(refused == 1008)
        #expect((3...4).contains(held.count), "\(held.count) held within 4 MiB")
    }

    @Test("Default --max-connections-per-user 64: the 65th /sync connection of one user is refused 429, another user connects")
    func connectionsPerUser() throws {
        let limit = FileDescriptorLimit.raiseToHardLimit()
        try #require(limit >= 300)
        // From one address, but with room for more than one user's share from it.
        let server = try ServerHarness.start(["--max-connections-per-ip", "200"])
        defer { server.stop() }
        let alice = try Hardening.token(server, "alice")
        let open = try (0..<64).map { _ in
            try RawWebSocketClient.connect(port: server.port, path: "/sync", extraHeaders: [("Authorization", "Bearer \(alice)")])
        }
        #expect(try Hardening.syncUpgradeStatus(port: server.port, token: alice) == 429)
        #expect(try Hardening.syncUpgradeStatus(port: server.port, token: try Hardening.token(server, "bob")) == 101)
        open[0].close()
        #expect(Hardening.eventually { (try? Hardening.syncUpgradeStatus(port: server.port, token: alice)) == 101 })
        #expect((try Hardening.metrics(port: server.port)["herald_connections_refused_total{reason=per_user_connections}"] ?? 0) >= 1)
    }

    @Test("Default --max-connections-per-ip 64: the 65th connection from one address gets 429, another address is served")
    func connectionsPerAddress() throws {
        let server = try ServerHarness.start(["--bench-endpoints"])
        defer { server.stop() }
        let open = try (0..<64).map { _ in try RawWebSocketClient.connect(port: server.port) }
        #expect(Hardening.probe(port: server.port, request: Hardening.upgrade()) == 429)
        #expect(Hardening.probe(port: server.port, sourceIP: "127.0.0.2", request: Hardening.upgrade()) == 101)
        try open[63].sendText("still")
        #expect(try open[63].readMessage().text == "still")
    }

    /// Sends the header of a `payloadBytes` text message and all of it but its last byte, in 64 KiB writes, looking for
    /// an answer after each: returns the close code when the server refused it, nil when it holds the whole part.
    static func sendUnfinishedMessage(_ client: RawWebSocketClient, payloadBytes: Int) throws -> UInt16? {
        // FIN, text; masked with the all-zero key (§5.3 allows any key), 64-bit length (§5.2).
        var header: [UInt8] = [0x81, 0x80 | 127]
        for shift in stride(from: 56, through: 0, by: -8) { header.append(UInt8(truncatingIfNeeded: payloadBytes >> shift)) }
        header += [0, 0, 0, 0]
        try client.send(header)
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 << 10)
        var sent = 0
        while sent < payloadBytes - 1 {
            if let code = try Self.closeCode(client) { return code }
            let size = min(chunk.count, payloadBytes - 1 - sent)
            do {
                try client.send(Array(chunk[..<size]))
            } catch {
                // The server closed while this was on its way: its close frame came before the reset.
                return try client.readCloseCode(timeoutMilliseconds: 5_000)
            }
            sent += size
        }
        // The last write may be the one that went over: its answer follows at once or not at all.
        var poller = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 200) == 1 ? try client.readCloseCode(timeoutMilliseconds: 5_000) : nil
    }

    /// The close code the server sent, when it sent one (or 1006 when it dropped TCP); nil while it only pinged or
    /// sent nothing.
    static func closeCode(_ client: RawWebSocketClient) throws(RawClientError) -> UInt16? {
        while hasInput(client) {
            let frame: RawFrame
            do {
                frame = try client.readFrame(timeoutMilliseconds: 5_000)
            } catch {
                switch error {
                case .connectionClosed: return 1006
                case .io(_, let code) where code == ECONNRESET: return 1006
                default: throw error
                }
            }
            if frame.opcode == 0x8 { return frame.closeCode ?? 1005 }
        }
        return nil
    }

    private static func hasInput(_ client: RawWebSocketClient) -> Bool {
        var poller = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) == 1
    }
}
