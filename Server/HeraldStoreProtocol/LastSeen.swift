/// E2: when each user was last seen, kept so that "offline, last seen <time>" outlives a server restart. Written when a
/// user's last connected device goes away (many users in one write: a batch's), read when an offline user's presence
/// is told.
public protocol LastSeenStore: AnyObject {
    /// Records that each user was last seen at their time (ms since the epoch). A time older than the one stored is
    /// ignored (another node may have seen the user later); unknown users are skipped. One write for all of them.
    func recordLastSeen(_ times: [String: Int64]) throws
    /// When these users were last seen, keyed by user; a user never seen (or unknown) is absent. One read.
    func lastSeen(users: [String]) throws -> [String: Int64]
}
