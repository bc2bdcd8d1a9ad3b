import HeraldProtocol
import HeraldStoreProtocol

/// What an app's own backend asks the sync thread to do (the `/api/v1` HTTP API). Each runs like a client
/// request: inside the current batch's transaction (group commit), with the same fan-out and idempotency, and
/// its answer is released only after the commit (R4).
public enum BackendOperation: Sendable {
    /// Creates a user; fails with `conflict` when the id exists with another name (same name: answered as it is).
    case createUser(id: String, name: String)
    /// Looks a user up.
    case user(id: String)
    /// The direct conversation between two existing users, created (and announced) when missing.
    case createDirect(String, String)
    /// A new group of `creator` plus `members`, announced to every participant.
    case createGroup(title: String, creator: String, members: [String])
    /// A message sent as `sender`, exactly like a client `send` (R1, R2, R4, P1-P4).
    case postMessage(conversation: String, sender: String, clientMessageId: String, kind: MessageKind, text: String?, imageURL: String?)
    /// A bell notification for `user`, streamed as a `bell` event to all the user's devices (B1-B3).
    case notify(user: String, kind: NotificationKind, text: String, url: String?, actor: String?)
    /// The user's unread counts per conversation, badge and bell count (U1, U5, B2).
    case unread(user: String)
    /// Signs the user's devices out (every one, or those named `device`), like the user's own `signOut`.
    case signOut(user: String, device: String?)
    /// Takes `user` out of the group `conversation`, like the user's own `leave`.
    case removeMember(conversation: String, user: String)
    /// Reads the stored API key with public id `id` (revoked and expired ones included), so the API checks a
    /// presented key against the store without reading it on a loop thread.
    case apiKey(id: String)
}

/// A successful backend operation's result.
public enum BackendValue: Sendable {
    /// A user; `created` is false when it existed already.
    case user(UserRecord, created: Bool)
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
}

/// Why a backend operation failed; `code` is the herald.v1 error code (`notParticipant` means the conversation
/// exists but the sender is not in it; `notFound` means no such conversation or user; `badRequest` for a
/// refused value; `unavailable` when the store cannot write) plus `conflict` for an existing user.
public struct BackendFailure: Error, Sendable, Equatable {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        case notFound, forbidden, conflict, badRequest, unavailable, `internal`
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
