import Foundation
import HeraldStore
import Testing

/// Push targets and the durable push queue, the same on both stores: one target per device, the oldest row of each
/// target handed out first under a lease, and nothing lost when a worker dies.
@Suite("Store: push targets and queue")
struct PushQueueTests {
    static let now: Int64 = 1_795_000_000_000

    static func target(_ device: String, token: String = "t") -> PushTargetRecord {
        PushTargetRecord(user: "bob", device: device, provider: .webhook, token: token)
    }

    static func delivery(_ target: PushTargetRecord, message: String) -> PushDeliveryRecord {
        PushDeliveryRecord(target: target, kind: .message, conversation: "c1", message: message, title: "Alice", body: "hi", createdAt: now, expiresAt: now + 60_000)
    }

    @Test("One target per device: registering again keeps the row and takes the new address", arguments: StoreBackend.allCases)
    func upsert(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let first = try store.transaction { try store.registerPushTarget(Self.target("bob-phone", token: "old"), now: Self.now) }
        let second = try store.transaction { try store.registerPushTarget(Self.target("bob-phone", token: "new"), now: Self.now + 1) }
        #expect(first.id == second.id)
        #expect(try store.pushTargets(users: ["bob", "alice"]).map(\.token) == ["new"])
        #expect(try store.usersWithPushTargets() == ["bob"])
        #expect(try store.transaction { try store.removePushTarget(user: "bob", device: "bob-phone") })
        #expect(try store.pushTargets(users: ["bob"]).isEmpty)
    }

    @Test("Claims hand out the oldest row of each target, leased; a later row waits for the earlier; an expired lease is claimed again", arguments: StoreBackend.allCases)
    func orderAndLeases(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let phone = try store.transaction { try store.registerPushTarget(Self.target("bob-phone"), now: Self.now) }
        let tablet = try store.transaction { try store.registerPushTarget(Self.target("bob-tablet"), now: Self.now) }
        try store.transaction {
            for message in ["m1", "m2", "m3"] { try store.enqueuePushDelivery(Self.delivery(phone, message: message), notBefore: Self.now) }
            try store.enqueuePushDelivery(Self.delivery(tablet, message: "m1"), notBefore: Self.now)
        }
        let first = try store.claimPushDeliveries(provider: .webhook, limit: 10, now: Self.now, leaseMilliseconds: 1_000)
        #expect(first.map { "\($0.target.device) \($0.message ?? "")" } == ["bob-phone m1", "bob-tablet m1"])
        #expect(first.allSatisfy { $0.attempts == 1 })
        #expect(try store.claimPushDeliveries(provider: .webhook, limit: 10, now: Self.now, leaseMilliseconds: 1_000).isEmpty, "leased")
        try store.completePushDelivery(id: first[0].id)
        let next = try store.claimPushDeliveries(provider: .webhook, limit: 10, now: Self.now, leaseMilliseconds: 1_000)
        #expect(next.map(\.message) == ["m2"])
        try store.retryPushDelivery(id: next[0].id, at: Self.now + 5_000)
        let expired = try store.claimPushDeliveries(provider: .webhook, limit: 10, now: Self.now + 4_999, leaseMilliseconds: 1_000)
        #expect(expired.map { "\($0.target.device) \($0.message ?? "") \($0.attempts)" } == ["bob-tablet m1 2"],
                "the tablet's lease ran out: claimed again, its attempt counted; m2 backs off and m3 waits behind it")
        let later = try store.claimPushDeliveries(provider: .webhook, limit: 10, now: Self.now + 5_000, leaseMilliseconds: 1_000)
        #expect(later.map { "\($0.target.device) \($0.message ?? "") \($0.attempts)" } == ["bob-phone m2 2"])
        #expect(try store.pushQueueDepth() == 3)
        #expect(try store.claimPushDeliveries(provider: .apns, limit: 10, now: Self.now + 10_000, leaseMilliseconds: 1_000).isEmpty, "by provider")
    }

    @Test("Putting a claimed row off for its host's sake gives its attempt back, ends the lease and keeps the order", arguments: StoreBackend.allCases)
    func deferGivesTheAttemptBack(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let phone = try store.transaction { try store.registerPushTarget(Self.target("bob-phone"), now: Self.now) }
        try store.transaction {
            for message in ["m1", "m2"] { try store.enqueuePushDelivery(Self.delivery(phone, message: message), notBefore: Self.now) }
        }
        let first = try store.claimPushDeliveries(provider: .webhook, limit: 10, now: Self.now, leaseMilliseconds: 60_000)
        #expect(first.map { "\($0.message ?? "") \($0.attempts)" } == ["m1 1"])
        try store.deferPushDelivery(id: first[0].id, at: Self.now + 2_000)
        #expect(try store.claimPushDeliveries(provider: .webhook, limit: 10, now: Self.now + 1_999, leaseMilliseconds: 60_000).isEmpty, "m2 waits behind m1")
        let again = try store.claimPushDeliveries(provider: .webhook, limit: 10, now: Self.now + 2_000, leaseMilliseconds: 60_000)
        #expect(again.map { "\($0.message ?? "") \($0.attempts)" } == ["m1 1"], "due when asked, its lease over; still its first attempt")
    }

    @Test("A claim whose lease ran out with no outcome counts as lapsed, in a row; any outcome recorded starts the count again", arguments: StoreBackend.allCases)
    func lapsedClaims(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let phone = try store.transaction { try store.registerPushTarget(Self.target("bob-phone"), now: Self.now) }
        _ = try store.transaction { try store.enqueuePushDelivery(Self.delivery(phone, message: "m1"), notBefore: Self.now) }
        var lapsed: [Int] = []
        var previousLeases: [Int64?] = []
        // Three workers die holding it: each claim after a lease ran out sees one more lapse, and when that lease ended.
        for step in 0..<4 {
            let claimed = try store.claimPushDeliveries(provider: .webhook, limit: 10, now: Self.now + Int64(step) * 1_000, leaseMilliseconds: 1_000)
            lapsed += claimed.map(\.lapsedClaims)
            previousLeases += claimed.map(\.previousLeaseEnd)
        }
        #expect(lapsed == [0, 1, 2, 3])
        #expect(previousLeases == [nil, Self.now + 1_000, Self.now + 2_000, Self.now + 3_000])
        let last = try #require(try store.claimPushDeliveries(provider: .webhook, limit: 10, now: Self.now + 4_000, leaseMilliseconds: 1_000).first)
        try store.retryPushDelivery(id: last.id, at: Self.now + 5_000)
        let afterOutcome = try store.claimPushDeliveries(provider: .webhook, limit: 10, now: Self.now + 5_000, leaseMilliseconds: 1_000)
        #expect(afterOutcome.map(\.lapsedClaims) == [0], "a retry is an outcome: the next claim is not a lapse")
        #expect(afterOutcome.map(\.attempts) == [6])
    }

    @Test("A push's opaque reference is kept as queued", arguments: StoreBackend.allCases)
    func reference(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let phone = try store.transaction { try store.registerPushTarget(Self.target("bob-phone"), now: Self.now) }
        var delivery = Self.delivery(phone, message: "m1")
        delivery.reference = "p42"
        _ = try store.transaction { try store.enqueuePushDelivery(delivery, notBefore: Self.now) }
        let claimed = try store.claimPushDeliveries(provider: .webhook, limit: 10, now: Self.now, leaseMilliseconds: 1_000)
        #expect(claimed.map(\.reference) == ["p42"])
    }

    @Test("Cancelling takes only rows not yet claimed; removing a gone target takes its rows unless it registered again since", arguments: StoreBackend.allCases)
    func cancelAndRemove(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let phone = try store.transaction { try store.registerPushTarget(Self.target("bob-phone"), now: Self.now) }
        try store.transaction {
            try store.enqueuePushDelivery(Self.delivery(phone, message: "m1"), notBefore: Self.now)
            try store.enqueuePushDelivery(Self.delivery(phone, message: "m2"), notBefore: Self.now)
        }
        _ = try store.claimPushDeliveries(provider: .webhook, limit: 10, now: Self.now, leaseMilliseconds: 1_000)
        #expect(try store.transaction { try store.cancelPushDeliveries(target: phone.id, kind: .message, message: "m1", notification: nil) } == 0, "m1 is out")
        #expect(try store.transaction { try store.cancelPushDeliveries(target: phone.id, kind: .message, message: "m2", notification: nil) } == 1)
        let again = try store.transaction { try store.registerPushTarget(Self.target("bob-phone", token: "new"), now: Self.now + 10) }
        try store.removePushTarget(id: phone.id, registeredAt: phone.updatedAt)
        #expect(try store.pushTargets(users: ["bob"]).map(\.token) == ["new"], "a newer registration survives the old address's 410")
        try store.removePushTarget(id: again.id, registeredAt: again.updatedAt)
        #expect(try store.pushTargets(users: ["bob"]).isEmpty)
        #expect(try store.pushQueueDepth() == 0, "its rows went with it")
    }

    @Test("Two workers on two connections never claim the same row", arguments: StoreBackend.allCases)
    func concurrentClaims(_ backend: StoreBackend) throws {
        let (database, store) = try storeWithUsers(backend)
        try store.transaction {
            for index in 0..<40 {
                let target = try store.registerPushTarget(Self.target("device-\(index)"), now: Self.now)
                try store.enqueuePushDelivery(Self.delivery(target, message: "m\(index)"), notBefore: Self.now)
            }
        }
        let other = try database.open()
        var claimed: [Int64] = []
        for _ in 0..<5 {
            claimed += try store.claimPushDeliveries(provider: .webhook, limit: 5, now: Self.now, leaseMilliseconds: 60_000).map(\.id)
            claimed += try other.claimPushDeliveries(provider: .webhook, limit: 5, now: Self.now, leaseMilliseconds: 60_000).map(\.id)
        }
        #expect(claimed.count == 40)
        #expect(Set(claimed).count == 40)
    }

    @Test("P5 for the bell: a queued bell alert is remembered per device, taken once, and goes with its target", arguments: StoreBackend.allCases)
    func bellAlerts(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let phone = try store.transaction { try store.registerPushTarget(Self.target("bob-phone"), now: Self.now) }
        let tablet = try store.transaction { try store.registerPushTarget(Self.target("bob-tablet"), now: Self.now) }
        try store.transaction {
            try store.recordBellAlert(target: phone.id, notification: "n1", now: Self.now)
            try store.recordBellAlert(target: tablet.id, notification: "n1", now: Self.now)
            try store.recordBellAlert(target: phone.id, notification: "n2", now: Self.now)
        }
        let taken = try store.transaction { try store.takeBellAlerts(user: "bob", notifications: ["n1"]) }
        #expect(taken.map { "\($0.target.device) \($0.notification)" } == ["bob-phone n1", "bob-tablet n1"])
        #expect(try store.transaction { try store.takeBellAlerts(user: "bob", notifications: ["n1"]) }.isEmpty, "taken once")
        #expect(try store.transaction { try store.takeBellAlerts(user: "alice", notifications: ["n2"]) }.isEmpty, "only the user's own")
        try store.transaction { _ = try store.removePushTarget(user: "bob", device: "bob-phone") }
        #expect(try store.transaction { try store.takeBellAlerts(user: "bob", notifications: ["n2"]) }.isEmpty, "gone with the target")
    }
}
