import Foundation
import Glibc
import HeraldDeflate
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import HeraldWebSocket
import Testing

/// Strangers' attacks fail only their own connection. Real binary.
@Suite("Hardening: attacks (binary)", .serialized)
struct HardeningAttackTests {
    @Test("RFC 7692 §8.1 / RFC 6455 §10.4: a compression bomb (16 MiB of zeros in ~16 KiB) fails that connection with 1009; another keeps echoing")
    func compressionBomb() throws {
        let server = try ServerHarness.start(["--bench-endpoints"])
        defer { server.stop() }
        let bystander = try RawWebSocketClient.connect(port: server.port)
        let offer = PerMessageDeflateClientConfiguration()
        let attacker = try RawWebSocketClient(port: server.port)
        try attacker.send(RawWebSocketClient.upgradeRequest(path: "/echo", extraHeaders: [("Sec-WebSocket-Extensions", offer.offerHeader)]).bytes)
        let response = try attacker.readHTTPResponse()
        try #require(response.status == 101)
        let agreed = try #require(try offer.acceptResponse(response.headers.filter { $0.0.lowercased() == "sec-websocket-extensions" }.map(\.1)))
        let deflate = try PerMessageDeflate(parameters: agreed, role: .client)
        let zeros = [UInt8](repeating: 0, count: 16 << 20)
        var bomb: [UInt8] = []
        #expect(zeros.withUnsafeBytes { deflate.compress($0, into: &bomb) })
        #expect(bomb.count < 64 << 10, "the bomb itself is small: \(bomb.count) bytes")
        try attacker.sendFrame(opcode: 0x2, payload: bomb, rsv: 0b100)
        #expect(try attacker.readCloseCode() == 1009)
        try bystander.sendText("unaffected")
        #expect(try bystander.readMessage().text == "unaffected")
        #expect(server.isRunning)
        #expect((try Hardening.metrics(port: server.port)["herald_websocket_closes_total{code=1009}"] ?? 0) >= 1)
    }

    @Test("A flood of 2,000 bad handshakes (garbage, wrong version, missing key, over-long head, mixed) is refused one by one; then a normal client works")
    func badHandshakeFlood() throws {
        let server = try ServerHarness.start(["--bench-endpoints"])
        defer { server.stop() }
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        let longHeader = "X-Pad: " + String(repeating: "a", count: 9_000) + "\r\n"
        let attacks: [[UInt8]] = [
            Array("\u{16}\u{03}\u{01}\u{02}\u{00}garbage\r\n\r\n".utf8),
            Array("GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 8\r\n\r\n".utf8),
            Array("GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n".utf8),
            Array("GET /echo HTTP/1.1\r\nHost: x\r\n\(longHeader)\r\n".utf8),
            Array("GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n\r\n".utf8),
            Array("POST /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n".utf8),
            Array("GET /echo HTTP/9.9\r\n\r\n".utf8),
            // A well-formed upgrade without credentials: refused with 401 (every other path is the bench broadcast).
            Array("GET /sync HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n".utf8),
            Array("GET /echo HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n".utf8),
            [0, 0, 0, 0, 0xFF, 0xFE, 0x0D, 0x0A, 0x0D, 0x0A],
        ]
        let answered = SharedTally(0), upgraded = SharedTally(0)
        let group = DispatchGroup()
        for worker in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                for n in 0..<500 {
                    let attack = attacks[(worker * 500 + n) % attacks.count]
                    if let status = Hardening.probe(port: server.port, request: attack, timeoutMs: 5_000) {
                        answered.add(1)
                        if status == 101 { upgraded.add(1) }
                    }
                }
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 120) == .success)
        #expect(upgraded.value == 0, "no bad handshake was upgraded")
        #expect(answered.value >= 1_800, "refusals carried a status (\(answered.value) of 2000)")
        #expect(server.isRunning)
        let client = try RawWebSocketClient.connect(port: server.port)
        try client.sendText("after the flood")
        #expect(try client.readMessage().text == "after the flood")
        #expect((try Hardening.metrics(port: server.port)["herald_http_bad_requests_total"] ?? 0) >= 1_800)
    }
}

/// A tiny lock-protected counter for test threads.
final class SharedTally: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count: Int
    init(_ value: Int) { count = value }
    func add(_ amount: Int) { lock.lock(); count += amount; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
