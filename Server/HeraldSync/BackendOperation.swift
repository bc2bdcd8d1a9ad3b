import HeraldProtocol

/// What an app's own backend asks the sync thread to do (the `/api/v1` HTTP API). Each runs like a client
/// request: inside the current batch's transaction (group commit), with the same fan-out and idempotency, and
/// its answer is released only after the commit (R4).
public enum BackendOperation: Sendable, Equatable {
    /// Creates a user; fails with `conflict` when the id exists with another name (same name: answered as it is).
    case createUser(id: String, name: String)
    /// Looks a user up.
    case user(id: String)
    /// Looks a user up for a token minted now for `device` (nil: any device), with the latest sign-out that token
    /// must be dated past (``TokenTimes/issuedAt(now:signedOutUntil:)``).
    case tokenSubject(id: String, device: String?)
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
    /// Renames the group on behalf of `user`, a participant, exactly like their own `group.rename` (G1).
    case renameGroup(conversation: String, user: String, title: String)
    /// Adds `member` to the group on behalf of `user`, a participant, exactly like their own `group.add` (G2).
    case addMember(conversation: String, user: String, member: String)
    /// Reads the stored API key with public id `id` (revoked and expired ones included), so the API checks a
    /// presented key against the store without reading it on a loop thread.
    case apiKey(id: String)
    /// Registers (or replaces) where the user's device is alerted while it has no connection, like the device's own
    /// `push.register`.
    case registerPushTarget(user: String, device: String, PushRegistration)
    /// Forgets the device's push target.
    case removePushTarget(user: String, device: String)
    /// The user's push targets.
    case pushTargets(user: String)
    /// Edits `user`'s message, exactly like their own `message.edit` (M1).
    case editMessage(message: String, user: String, text: String)
    /// Unsends `user`'s message, exactly like their own `message.unsend` (M2).
    case unsendMessage(message: String, user: String)
    /// Mutes `conversation` for `user` for `minutes`, or until unmuted when nil, exactly like their own `mute` (N1).
    case mute(user: String, conversation: String, minutes: Int?)
    /// Ends `user`'s mute of `conversation`, like their own `unmute` (N1).
    case unmute(user: String, conversation: String)
}
