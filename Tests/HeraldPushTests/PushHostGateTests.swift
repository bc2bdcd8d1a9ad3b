@testable import HeraldPush
import Testing

/// How a provider's workers are shared out among hosts: a share per host, backoff for a failing host, a retry budget.
@Suite("Push: host gate")
struct PushHostGateTests {
    static let now: Int64 = 1_795_000_000_000

    static func gate(maxInFlight: Int = 2, burst: Int? = 3, perSecond: Double = 1) -> PushHostGate {
        PushHostGate(limits: .init(
            maxInFlight: maxInFlight, retryBurst: burst, retriesPerSecond: perSecond, backoffBaseMilliseconds: 1_000, backoffMaxMilliseconds: 8_000))
    }

    static func isPutOff(_ admission: PushHostGate.Admission) -> Bool { putOffUntil(admission) != nil }

    static func putOffUntil(_ admission: PushHostGate.Admission) -> Int64? {
        if case .putOff(let until, _) = admission { return until }
        return nil
    }

    @Test("A host gets its share of requests in flight; other hosts are not affected")
    func share() {
        var gate = Self.gate()
        #expect(gate.admit("tarpit.example", isRetry: false, now: Self.now) == .send)
        #expect(gate.admit("tarpit.example", isRetry: false, now: Self.now) == .send)
        #expect(Self.isPutOff(gate.admit("tarpit.example", isRetry: false, now: Self.now)), "the third waits")
        #expect(gate.admit("push.example.org", isRetry: false, now: Self.now) == .send, "another host goes at once")
        gate.finish("tarpit.example", failed: false, now: Self.now + 10)
        #expect(gate.admit("tarpit.example", isRetry: false, now: Self.now + 10) == .send, "a slot freed")
    }

    @Test("A failing host backs off exponentially (capped), its rows put off until then; an answer ends the backoff")
    func backoff() {
        var gate = Self.gate(burst: nil)
        var now = Self.now
        for expected: Int64 in [1_000, 2_000, 4_000, 8_000, 8_000] {
            #expect(gate.admit("down.example", isRetry: false, now: now) == .send)
            gate.finish("down.example", failed: true, now: now)
            #expect(Self.putOffUntil(gate.admit("down.example", isRetry: false, now: now)) == now + expected)
            now += expected
        }
        #expect(gate.admit("down.example", isRetry: false, now: now) == .send)
        gate.finish("down.example", failed: false, now: now)
        #expect(gate.admit("down.example", isRetry: false, now: now) == .send, "open again")
    }

    @Test("Retries to one host draw on a budget: the burst, then the refill rate; first attempts do not")
    func retryBudget() {
        var gate = Self.gate(maxInFlight: 64, burst: 3, perSecond: 1)
        for _ in 0..<3 {
            #expect(gate.admit("flaky.example", isRetry: true, now: Self.now) == .send)
            gate.finish("flaky.example", failed: false, now: Self.now)
        }
        let fourth = gate.admit("flaky.example", isRetry: true, now: Self.now)
        #expect(fourth == .putOff(until: Self.now + 1_000, reason: "the host's retry budget is spent"))
        #expect(gate.admit("flaky.example", isRetry: false, now: Self.now) == .send, "a first attempt is not a retry")
        #expect(gate.admit("flaky.example", isRetry: true, now: Self.now + 1_000) == .send, "refilled after a second")
    }

    @Test("A browser's push service (Chrome's FCM, Firefox, Safari, Edge) gets every worker and no retry budget: it holds every browser user's subscriptions")
    func wellKnownPushServices() {
        var gate = PushHostGate(limits: .init(
            maxInFlight: 2, retryBurst: 1, retriesPerSecond: 1, backoffBaseMilliseconds: 1_000, backoffMaxMilliseconds: 8_000, wellKnownMaxInFlight: 4))
        for host in ["fcm.googleapis.com", "updates.push.services.mozilla.com", "web.push.apple.com", "wns2-par02p.notify.windows.com"] {
            for _ in 0..<4 { #expect(gate.admit(host, isRetry: true, now: Self.now) == .send, "\(host): all four workers, retries unbudgeted") }
            #expect(Self.isPutOff(gate.admit(host, isRetry: false, now: Self.now)), "\(host): no more than the provider's workers")
        }
        #expect(!PushHostGate.isWellKnownPushService("notify.windows.com.tarpit.example"))
        #expect(!PushHostGate.isWellKnownPushService("evil-fcm.googleapis.com.example"))
        #expect(PushHostGate.failed(.answered(status: 503), tooManyRequestsIsTheHost: false) == true, "a 5xx still backs the service off")
    }

    @Test("Web Push endpoints are shared out by site: names under one domain are one share; IP literals their own")
    func site() {
        #expect(PushHostGate.site(ofEndpoint: "https://a.tarpit.example:8443/push/1") == "tarpit.example")
        #expect(PushHostGate.site(ofEndpoint: "https://B.Tarpit.Example/push/2") == "tarpit.example")
        #expect(PushHostGate.site(ofEndpoint: "https://push.googleapis.com/x") == "googleapis.com")
        #expect(PushHostGate.site(ofEndpoint: "https://fcm.googleapis.com/fcm/send/x") == "fcm.googleapis.com", "a browser's push service is its own")
        #expect(PushHostGate.site(ofEndpoint: "http://127.0.0.2:9000/p") == "127.0.0.2")
        #expect(PushHostGate.site(ofEndpoint: "http://[::1]:9000/p") == "::1")
    }

    @Test("What counts as the host failing: no answer and 5xx always; 429 only where it is the host throttling (Web Push), not one APNs/FCM device token")
    func failures() {
        #expect(PushHostGate.failed(.noAnswer, tooManyRequestsIsTheHost: false) == true)
        #expect(PushHostGate.failed(.answered(status: 503), tooManyRequestsIsTheHost: false) == true)
        #expect(PushHostGate.failed(.answered(status: 429), tooManyRequestsIsTheHost: true) == true)
        #expect(PushHostGate.failed(.answered(status: 429), tooManyRequestsIsTheHost: false) == false)
        #expect(PushHostGate.failed(.answered(status: 410), tooManyRequestsIsTheHost: true) == false)
        #expect(PushHostGate.failed(nil, tooManyRequestsIsTheHost: true) == nil, "no request made: nothing learnt")
    }

    @Test("A tiny retry rate puts a retry off no longer than the longest backoff, never trapping on the conversion")
    func tinyRate() {
        var gate = Self.gate(maxInFlight: 64, burst: 0, perSecond: 1e-300)
        #expect(Self.putOffUntil(gate.admit("slow.example", isRetry: true, now: Self.now)) == Self.now + 8_000)
    }
}
