import HeraldStoreProtocol

/// When a queued push is quarantined instead of handled: its lease ran out `limit` claims in a row with no outcome,
/// and the last of those leases was taken before this gateway started, so by a process that is gone (it crashed or was
/// killed while handling the push). Leases that ran out under this gateway's own workers (one slow provider) are not a
/// crash: such a push is handled as usual, however often that happened.
public enum PushQuarantine {
    public static func applies(
        to delivery: PushDeliveryRecord, limit: Int, gatewayStartedAt: Int64, leaseMilliseconds: Int64
    ) -> Bool {
        guard delivery.lapsedClaims >= limit, let leaseEnd = delivery.previousLeaseEnd else { return false }
        let (takenAt, overflow) = leaseEnd.subtractingReportingOverflow(max(leaseMilliseconds, 0))
        return overflow || takenAt < gatewayStartedAt
    }
}
