import HeraldProtocol
import HeraldStoreProtocol

/// A successful backend operation's result.
public enum BackendValue: Sendable {
    /// A user; `created` is false when it existed already.
    case user(UserRecord, created: Bool)
    /// A user a token is minted for, and the latest boundary of the sign-outs that would refuse it (nil: none).
    case tokenSubject(UserRecord, signedOutUntil: Int64?)
    /// A conversation as `viewer` sees it; `created` is false when an existing direct conversation was returned.
    case conversation(ConversationInfo, created: Bool)
    /// A stored message; `duplicate` when it was a retry of the same (sender, clientMessageId) (R4).
    case message(MessageInfo, duplicate: Bool)
    /// A created notification and the user's new bell count.
    case notification(NotificationInfo, bellUnread: Int)
    /// Unread counts per conversation id, the badge (their sum), the bell count and the stream position reflected (U7).
    case unread(perConversation: [String: Int], badge: Int, bellUnread: Int, latest: Int64)
    /// The user's devices were signed out (every one when `device` is nil).
    case signedOut(user: String, device: String?)
    /// `user` is no longer in `conversation`.
    case removed(conversation: String, user: String)
    /// The stored API key, or nil when there is none with that id.
    case apiKey(APIKeyRecord?)
    /// A registered push target.
    case pushTarget(PushTargetRecord)
    /// A user's push targets.
    case pushTargets([PushTargetRecord])
    /// The device's push target was removed.
    case pushTargetRemoved(user: String, device: String)
    /// `user`'s mute of `conversation` now: muted until `mutedUntil` (nil: until unmuted), or not muted.
    case muteState(user: String, conversation: String, muted: Bool, mutedUntil: Int64?)
}

/// Why a backend operation failed; `code` is the herald.v1 error code (`notParticipant` means the conversation
/// exists but the sender is not in it; `notFound` means no such conversation or user; `badRequest` for a
/// refused value; `unavailable` when the store cannot write) plus `conflict` for an existing user.
public struct BackendFailure: Error, Sendable, Equatable {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        case notFound, forbidden, conflict, badRequest, unavailable, `internal`
        /// M1, M2: the time to edit or unsend the message has passed.
        case tooLate
        /// M1: the message was edited as often as allowed.
        case tooManyEdits
        /// The user's daily storage quota is used up (``StorageQuota``).
        case quotaExceeded
    }
    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

/// One operation plus where its result goes. `reply` is called exactly once, on the sync thread, after the
/// batch committed (or failed); it must not block.
public struct BackendCall: Sendable {
    public var operation: BackendOperation
    public var reply: @Sendable (Result<BackendValue, BackendFailure>) -> Void

    public init(_ operation: BackendOperation, reply: @escaping @Sendable (Result<BackendValue, BackendFailure>) -> Void) {
        self.operation = operation
        self.reply = reply
    }
}
