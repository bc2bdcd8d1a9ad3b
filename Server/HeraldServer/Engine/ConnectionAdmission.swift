import HeraldSync
import Synchronization

/// Per-address limits checked when a connection is accepted, before anything is read from it: at most
/// `maxPerAddress` open connections per IP and at most `handshakeRate` new connections per second per IP
/// (burst: five seconds' worth, so a client reconnecting a pool is not punished). Both refusals are answered 429.
///
/// Shared by all loops behind one mutex, taken once per accept and once per close (never per frame).
final class ConnectionAdmission: Sendable {
    /// Why a connection is refused.
    enum Verdict: Equatable {
        case admitted
        case tooManyConnections
        case tooManyHandshakes(retryAfterMs: Int64)
    }

    private struct State {
        var open: [String: Int] = [:]
        var handshakes: TokenBuckets<String>
    }

    let maxPerAddress: Int
    /// Whether any limit is on (otherwise callers skip the lock entirely).
    let isEnabled: Bool
    private let state: Mutex<State>

    /// - Parameters:
    ///   - maxPerAddress: open connections per IP; 0 = unlimited.
    ///   - handshakeRate: new connections per second per IP; 0 = unlimited.
    init(maxPerAddress: Int, handshakeRate: Double) {
        self.maxPerAddress = maxPerAddress
        self.isEnabled = maxPerAddress > 0 || handshakeRate > 0
        state = Mutex(State(handshakes: TokenBuckets(ratePerSecond: handshakeRate, burst: handshakeRate * 5)))
    }

    /// Counts a new connection from `address` ("ip:port") unless a limit refuses it. An admitted connection must
    /// be ``release(_:)``d when it closes; a refused one must not.
    func admit(_ address: String, nowMs: Int64) -> Verdict {
        let ip = Self.ip(of: address)
        return state.withLock { state in
            if maxPerAddress > 0, state.open[ip, default: 0] >= maxPerAddress { return .tooManyConnections }
            if let wait = state.handshakes.take(ip, nowMs: nowMs) { return .tooManyHandshakes(retryAfterMs: wait) }
            state.open[ip, default: 0] += 1
            return .admitted
        }
    }

    /// The admitted connection from `address` closed.
    func release(_ address: String) {
        let ip = Self.ip(of: address)
        state.withLock { state in
            guard let count = state.open[ip] else { return }
            if count <= 1 { state.open[ip] = nil } else { state.open[ip] = count - 1 }
        }
    }

    /// "1.2.3.4:5678" → "1.2.3.4"; "[::1]:5678" → "::1".
    static func ip(of address: String) -> String {
        guard let colon = address.lastIndex(of: ":") else { return address }
        var ip = address[..<colon]
        if ip.hasPrefix("["), ip.hasSuffix("]") { ip = ip.dropFirst().dropLast() }
        return String(ip)
    }
}
