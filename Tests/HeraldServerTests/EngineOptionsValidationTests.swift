import HeraldServer
import Testing

/// `HeraldServerOptions.validate()` refuses, at start, the values that would otherwise trap later: a negative port
/// reaches `UInt16(port)`, an infinite push grace reaches `Int64(seconds * 1000)`, a huge message size reaches
/// `2 * maxMessageSize + 64`.
@Suite("Engine: option validation")
struct EngineOptionsValidationTests {
    static func refuses(_ change: (inout HeraldServerOptions) -> Void) -> Bool {
        var options = HeraldServerOptions()
        change(&options)
        do {
            try options.validate()
            return false
        } catch {
            return true
        }
    }

    @Test("Timeouts beyond a year are refused: the deadline addition would wrap into the past and time everyone out")
    func hugeTimeoutsAreRefused() {
        #expect(Self.refuses { $0.handshakeTimeoutMs = Int.max })
        #expect(Self.refuses { $0.pingIntervalMs = Int.max })
        #expect(Self.refuses { $0.idleTimeoutMs = Int.max })
        #expect(Self.refuses { $0.handshakeTimeoutMs = 0 })
        #expect(!Self.refuses {
            $0.pingIntervalMs = 0
            $0.idleTimeoutMs = 0
        }, "0 turns pings and the idle timeout off")
    }

    @Test("The defaults pass validation")
    func defaultsPass() throws {
        try HeraldServerOptions().validate()
    }

    @Test("A negative --port or --tls-port (given as --port=-1) is refused instead of trapping in UInt16(_:)")
    func negativePortsAreRefused() {
        #expect(Self.refuses { $0.port = -1 })
        #expect(Self.refuses {
            $0.tlsCertificateFile = "cert.pem"
            $0.tlsKeyFile = "key.pem"
            $0.tlsPort = -1
        })
        #expect(!Self.refuses { $0.port = 0 })
    }

    @Test("A push grace of inf, nan or 1e300 seconds is refused instead of trapping when made milliseconds")
    func unboundedPushGraceIsRefused() {
        for seconds in [Double.infinity, .nan, 1e300, -1] {
            #expect(Self.refuses { $0.pushGraceSeconds = seconds }, "\(seconds)")
        }
        #expect(!Self.refuses { $0.pushGraceSeconds = 0.2 })
    }

    @Test("An infinite handshake or send rate is refused, as the HERALD_* variables already refuse it")
    func infiniteRatesAreRefused() {
        #expect(Self.refuses { $0.syncSendRate = .infinity })
        #expect(Self.refuses { $0.handshakeRatePerIP = .infinity })
    }

    @Test("A --max-message-bytes whose send-queue bound would overflow is refused")
    func hugeMessageSizeIsRefused() {
        #expect(Self.refuses { $0.maxMessageSize = .max })
        #expect(!Self.refuses { $0.maxMessageSize = 64 << 20 })
    }
}
