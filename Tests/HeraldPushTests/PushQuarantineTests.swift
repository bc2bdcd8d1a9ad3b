import HeraldPush
import HeraldStoreProtocol
import Testing

/// A push is quarantined only when it keeps dying with the process that handles it: N lapsed claims in a row, the last
/// one taken before this gateway started. Slowness of this gateway's own workers never quarantines.
@Suite("Push: quarantine of a push that keeps killing its worker")
struct PushQuarantineTests {
    static let started: Int64 = 1_795_000_000_000
    static let lease: Int64 = 60_000

    static func delivery(lapsed: Int, previousLeaseEnd: Int64?) -> PushDeliveryRecord {
        var delivery = PushDeliveryRecord(
            target: PushTargetRecord(user: "bob", device: "bob-app", provider: .webhook, token: "t"), kind: .message, createdAt: started,
            expiresAt: started + 3_600_000)
        delivery.lapsedClaims = lapsed
        delivery.previousLeaseEnd = previousLeaseEnd
        return delivery
    }

    @Test("The third lapse in a row, the last lease taken by a process before this one: quarantined")
    func crashLoop() {
        let lastTaken = Self.started - 5_000
        #expect(PushQuarantine.applies(to: Self.delivery(lapsed: 3, previousLeaseEnd: lastTaken + Self.lease), limit: 3, gatewayStartedAt: Self.started, leaseMilliseconds: Self.lease))
        #expect(PushQuarantine.applies(to: Self.delivery(lapsed: 9, previousLeaseEnd: lastTaken + Self.lease), limit: 3, gatewayStartedAt: Self.started, leaseMilliseconds: Self.lease))
    }

    @Test("Fewer lapses, no lapse, or the last lease taken by this gateway's own (slow) worker: handled as usual")
    func notQuarantined() {
        let ownLease = Self.started + 10_000 + Self.lease
        #expect(!PushQuarantine.applies(to: Self.delivery(lapsed: 2, previousLeaseEnd: Self.started - 1), limit: 3, gatewayStartedAt: Self.started, leaseMilliseconds: Self.lease))
        #expect(!PushQuarantine.applies(to: Self.delivery(lapsed: 0, previousLeaseEnd: nil), limit: 3, gatewayStartedAt: Self.started, leaseMilliseconds: Self.lease))
        #expect(!PushQuarantine.applies(to: Self.delivery(lapsed: 7, previousLeaseEnd: ownLease), limit: 3, gatewayStartedAt: Self.started, leaseMilliseconds: Self.lease))
    }

    @Test("Extreme stored values never trap")
    func extremes() {
        for end in [Int64.min, -1, 0, Int64.max] {
            for lease in [Int64.min, 0, Int64.max] {
                _ = PushQuarantine.applies(to: Self.delivery(lapsed: Int.max, previousLeaseEnd: end), limit: 3, gatewayStartedAt: Self.started, leaseMilliseconds: lease)
            }
        }
    }
}
