import HeraldWebSocket
import Testing

/// The keep-alive deadlines the state machine owns, driven by `now` (milliseconds), the same for both roles.
@Suite("Keep-alive deadlines (RFC 6455 §5.5.2, §7.1.1)")
struct KeepAliveTests {
    static let roles: [WebSocketRole] = [.server, .client]

    /// A frame as the peer of `role` would send it (masked towards a server, §5.1).
    static func peerFrame(to role: WebSocketRole, _ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        if role == .server {
            FrameEncoder.encodeClientFrame(opcode: opcode, payload: payload, maskKey: fixtureKey, into: &out)
        } else {
            FrameEncoder.encodeServerFrame(opcode: opcode, payload: payload, into: &out)
        }
        return out
    }

    /// The frames `machine` wrote for its last input, decoded.
    static func written(_ machine: WebSocketStateMachine, role: WebSocketRole) -> [DecodedFrame] {
        var bytes: [UInt8] = []
        for case .write(let range) in machine.actions { bytes += machine.outgoing[range] }
        return decodeFrames(bytes, sentBy: role) ?? []
    }

    @Test("RFC 6455 §5.5.2: a ping is due after the interval of silence, and none before", arguments: roles)
    func pingAfterSilence(role: WebSocketRole) {
        var machine = WebSocketStateMachine(role: role, keepAlive: WebSocketKeepAlive(pingIntervalMs: 1000), now: 10_000)
        #expect(machine.nextDeadline == 11_000)
        machine.timerFired(now: 10_999)
        #expect(Self.written(machine, role: role).isEmpty)
        #expect(machine.actions == [.setTimer(at: 11_000)])
        machine.timerFired(now: 11_000)
        #expect(Self.written(machine, role: role).map(\.opcode) == [.ping])
        #expect(machine.actions.last == .setTimer(at: 12_000))
    }

    @Test("RFC 6455 §5.5.2: anything read postpones the next ping", arguments: roles)
    func readPostponesPing(role: WebSocketRole) {
        var machine = WebSocketStateMachine(role: role, keepAlive: WebSocketKeepAlive(pingIntervalMs: 1000), now: 0)
        machine.receive(Self.peerFrame(to: role, .text, Array("hi".utf8)), now: 700)
        #expect(machine.nextDeadline == 1700)
        machine.timerFired(now: 1000)  // the timer armed before the read comes early: nothing is due
        #expect(machine.actions == [.setTimer(at: 1700)])
    }

    @Test("Idle timeout: close 1001 \"idle timeout\", the transport closes after the flush, no timer left", arguments: roles)
    func idleClose(role: WebSocketRole) {
        var machine = WebSocketStateMachine(role: role, keepAlive: WebSocketKeepAlive(pingIntervalMs: 400, idleTimeoutMs: 1000), now: 0)
        machine.timerFired(now: 400)  // ping
        machine.timerFired(now: 1000)
        let frames = Self.written(machine, role: role)
        #expect(frames.map(\.opcode) == [.close])
        #expect(frames.first?.payload == hex("03 E9") + Array("idle timeout".utf8))
        #expect(machine.actions.contains(.closeStarted(.goingAway, cause: .idleTimeout)))
        #expect(machine.actions.suffix(2) == [.closeTransport(afterFlush: true), .setTimer(at: nil)])
        #expect(machine.state == .closing)
    }

    @Test("RFC 6455 §7.1.1: the peer does not answer our close in time: the transport is dropped without a flush", arguments: roles)
    func closeHandshakeTimeout(role: WebSocketRole) {
        var machine = WebSocketStateMachine(role: role, keepAlive: WebSocketKeepAlive(closeTimeoutMs: 2000), now: 0)
        var output: [UInt8] = []
        machine.close(code: .normal, reason: "", now: 500, into: &output)
        #expect(machine.nextDeadline == 2500)
        machine.timerFired(now: 2499)
        #expect(machine.actions == [.setTimer(at: 2500)])
        machine.timerFired(now: 2500)
        #expect(machine.actions == [.closeTransport(afterFlush: false), .setTimer(at: nil)])
    }

    /// The inputs after which the transport is to close once its queue is flushed: the peer's close (answered), a
    /// protocol failure, and the idle and pong timeouts.
    enum FlushedClose: CaseIterable {
        case peerClose, protocolFailure, idleTimeout, pongTimeout
    }

    @Test(
        "RFC 6455 §7.1.1: a close that waits for the queue to flush is bounded by the close timeout: a peer that stops reading cannot hold the connection",
        arguments: roles, FlushedClose.allCases)
    func flushedCloseTimesOut(role: WebSocketRole, close: FlushedClose) {
        let keepAlive = WebSocketKeepAlive(pingIntervalMs: 1000, pongTimeoutMs: 500, idleTimeoutMs: 10_000, closeTimeoutMs: 2000)
        var machine = WebSocketStateMachine(role: role, keepAlive: keepAlive, now: 0)
        let closedAt: Int64
        switch close {
        case .peerClose:
            closedAt = 300
            machine.receive(Self.peerFrame(to: role, .close, hex("03 E8")), now: closedAt)
        case .protocolFailure:
            closedAt = 300
            var frame = Self.peerFrame(to: role, .binary, [])
            frame[0] |= 0x70  // RSV1-3 without an extension that defines them (§5.2)
            machine.receive(frame, now: closedAt)
        case .idleTimeout:
            machine = WebSocketStateMachine(role: role, keepAlive: WebSocketKeepAlive(idleTimeoutMs: 1000, closeTimeoutMs: 2000), now: 0)
            closedAt = 1000
            machine.timerFired(now: closedAt)
        case .pongTimeout:
            machine.timerFired(now: 1000)  // the ping
            closedAt = 1500
            machine.timerFired(now: closedAt)
        }
        #expect(machine.actions.contains(.closeTransport(afterFlush: true)), "\(machine.actions)")
        #expect(machine.actions.last == .setTimer(at: closedAt + 2000))
        #expect(machine.closeSentAt == closedAt)
        machine.timerFired(now: closedAt + 1999)
        #expect(machine.actions == [.setTimer(at: closedAt + 2000)])
        machine.timerFired(now: closedAt + 2000)
        #expect(machine.actions == [.closeTransport(afterFlush: false), .setTimer(at: nil)])
    }

    @Test("RFC 6455 §7.1.2: a scheduled close starts the handshake with its code at its deadline", arguments: roles)
    func scheduledClose(role: WebSocketRole) {
        var machine = WebSocketStateMachine(role: role, keepAlive: WebSocketKeepAlive(pingIntervalMs: 10_000, closeTimeoutMs: 2000), now: 0)
        machine.scheduleClose(at: 3000, code: CloseCode(rawValue: 4001), reason: "expired")
        #expect(machine.nextDeadline == 3000)
        machine.timerFired(now: 3000)
        #expect(Self.written(machine, role: role).first?.payload == hex("0F A1") + Array("expired".utf8))
        #expect(machine.actions.contains(.closeStarted(CloseCode(rawValue: 4001), cause: .scheduled)))
        #expect(machine.actions.suffix(2) == [.closeTransport(afterFlush: true), .setTimer(at: 5000)])
    }

    @Test("A scheduled close belongs to the machine it was scheduled on: a copy made before keeps none, one made after keeps it", arguments: roles)
    func scheduledCloseIsPerCopy(role: WebSocketRole) {
        let original = WebSocketStateMachine(role: role, now: 0)
        var scheduled = original
        scheduled.scheduleClose(at: 3000, code: CloseCode(rawValue: 4001), reason: "expired")
        var copy = scheduled
        copy.scheduleClose(at: 5000, code: CloseCode(rawValue: 4002), reason: "later")
        #expect(original.nextDeadline == nil)
        #expect(scheduled.nextDeadline == 3000)
        #expect(copy.nextDeadline == 5000)
        scheduled.timerFired(now: 3000)
        #expect(scheduled.actions.contains(.closeStarted(CloseCode(rawValue: 4001), cause: .scheduled)))
        #expect(copy.nextDeadline == 5000)
    }

    @Test("RFC 6455 §5.5.3: with a pong timeout, a ping that nothing answers closes; any read in time keeps the connection", arguments: roles)
    func pongTimeout(role: WebSocketRole) {
        let keepAlive = WebSocketKeepAlive(pingIntervalMs: 1000, pongTimeoutMs: 500)
        var answered = WebSocketStateMachine(role: role, keepAlive: keepAlive, now: 0)
        answered.timerFired(now: 1000)
        #expect(answered.nextDeadline == 1500)
        answered.receive(Self.peerFrame(to: role, .pong, []), now: 1200)
        #expect(answered.nextDeadline == 2200)

        var silent = WebSocketStateMachine(role: role, keepAlive: keepAlive, now: 0)
        silent.timerFired(now: 1000)
        silent.timerFired(now: 1500)
        #expect(silent.actions.contains(.closeStarted(.goingAway, cause: .pongTimeout)))
        #expect(silent.actions.suffix(2) == [.closeTransport(afterFlush: true), .setTimer(at: nil)])
    }

    @Test("Keep-alive off (the default): no deadline at all", arguments: roles)
    func off(role: WebSocketRole) {
        var machine = WebSocketStateMachine(role: role)
        #expect(machine.nextDeadline == nil)
        machine.timerFired(now: 1 << 40)
        #expect(machine.actions == [.setTimer(at: nil)])
    }

    @Test("Settings are stored in 32 bits: values read back, a close timeout of nil stays nil, negative is off, 60 days clamps")
    func compactSettings() {
        let settings = WebSocketKeepAlive(pingIntervalMs: 30_000, pongTimeoutMs: 5_000, idleTimeoutMs: 90_000, closeTimeoutMs: 2_000)
        #expect([settings.pingIntervalMs, settings.pongTimeoutMs, settings.idleTimeoutMs] == [30_000, 5_000, 90_000])
        #expect(settings.closeTimeoutMs == 2_000)
        #expect(WebSocketKeepAlive().closeTimeoutMs == nil)
        #expect(WebSocketKeepAlive(closeTimeoutMs: 0).closeTimeoutMs == 0)
        #expect(WebSocketKeepAlive(pingIntervalMs: -5).pingIntervalMs == 0)
        let sixtyDays: Int64 = 60 * 24 * 3_600_000
        let clamped = WebSocketKeepAlive(idleTimeoutMs: sixtyDays, closeTimeoutMs: sixtyDays)
        #expect(clamped.idleTimeoutMs == Int64(UInt32.max - 1))
        #expect(clamped.closeTimeoutMs == Int64(UInt32.max - 1))
        #expect(MemoryLayout<WebSocketKeepAlive>.size == 16)
    }
}
