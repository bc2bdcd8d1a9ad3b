import HeraldProtocol
import HeraldRules

/// Something that happened by itself (not an answer to a command), as a typed value. Front ends take these as they
/// are: the terminal and HeraldKit read the fields, and script mode writes each as one `event` line
/// (``ScriptOutput``), the only place they become JSON.
public enum ClientEvent: Sendable, Equatable {
    /// The stream is live (R1a): `mode` is how it started (`snapshot`, `resume`, `resync`), `latest` its seq.
    case connected(mode: String, latest: Int64)
    /// A live connection was lost.
    case disconnected(reason: String)
    /// A message reached this device (printed once per message, never for history).
    case message(MessageInfo, sequence: Int64?)
    /// A page of a thread was loaded (script mode's record of history; no `message` events for it).
    case history(conversation: String, messages: [MessageInfo])
    /// M1: a message now reads differently.
    case edited(MessageInfo, sequence: Int64?)
    /// M2: a message was taken back; `counts` are the conversation's unread count and the badge when they changed.
    case unsent(MessageInfo, counts: UnreadCounts?, sequence: Int64?)
    /// N1, N3, N4: a mute, quiet hours or a mark changed on one of this user's devices.
    case settings(SettingsChange)
    /// A conversation this device was not told about appeared.
    case conversation(id: String, title: String)
    /// This user's read state changed (U rules).
    case read(conversation: String, messages: [String], counts: UnreadCounts, sequence: Int64?)
    /// A user left a group.
    case left(conversation: String, user: String)
    /// U6: someone read one of this user's messages.
    case receipt(conversation: String?, message: String?, reader: String?, at: Int64?)
    /// A push reached the device (P2; `via` the provider's channel while locked).
    case push(PushArrival)
    /// P5: a push was withdrawn.
    case pushCleared(conversation: String, message: String)
    /// The device's push subscription was registered (`device` is its name on the server).
    case pushRegistered(device: String?, provider: String)
    /// The server refused the push subscription.
    case pushRegistrationFailed(code: String, message: String)
    /// A send was refused for good (it will not be retried).
    case sendFailed(clientMessageId: String, code: String, message: String)
    /// B2: the bell changed; `pulse` when its unread count rose.
    case bell(action: String, notification: String?, unread: Int, badgeText: String, pulse: Bool)
    /// E2: a user's presence changed.
    case presence(user: String, status: PresenceStatus, lastSeen: Int64?)
    /// `user` reacted `emoji` to `message` (shown under it).
    case reaction(conversation: String, message: String, user: String, emoji: String, sequence: Int64?)
    /// E1: who types in a conversation now.
    case typing(conversation: String, users: [String])
    /// A toast became the visible one.
    case toastShown(Toast)
    /// The visible toast changed in place.
    case toastUpdated(Toast)
    /// A toast went away.
    case toastDismissed(id: String, reason: ToastDismissReason)
    /// A toast's action fired.
    case toastAction(id: String, action: String)
    /// T11: the haptic that goes with a toast.
    case haptic(name: String, toast: String)
    /// D rules: a deep link was followed to `scene`, or failed with `error` (then `scene` is where the app stayed).
    case route(url: String, scene: String, conversation: String?, error: String?)
}

/// A conversation's unread count and the app badge after a change (U rules).
public struct UnreadCounts: Sendable, Equatable {
    public var unread: Int
    public var badge: Int

    public init(unread: Int, badge: Int) {
        self.unread = unread
        self.badge = badge
    }
}

/// What a `settings` event changed; nil fields did not change.
public struct SettingsChange: Sendable, Equatable {
    public var quiet: Bool?
    public var conversation: String?
    public var muted: Bool?
    public var mutedUntil: Int64?
    public var markedUnread: Bool?
    /// Set with `markedUnread`: the counts after the mark.
    public var counts: UnreadCounts?
    public var sequence: Int64?
}

/// A push as it reached the device: from the server's stream, or from the provider while the phone was locked.
public enum PushArrival: Sendable, Equatable {
    /// A push the stream carried (P2 fields).
    case stream(PushInfo, badge: Int?)
    /// A Web Push message push with its ids.
    case webPushMessage(PushInfo, badge: Int64?)
    /// A Web Push bell push: `info.message` holds the notification id.
    case webPushBell(PushInfo, badge: Int64?)
    /// A Web Push push without ids (`--push-preview none`): only its opaque ref.
    case webPushOpaque(PushInfo, reference: String, badge: Int64?)

    /// The push as the device keeps it.
    public var info: PushInfo {
        switch self {
        case .stream(let info, _), .webPushMessage(let info, _), .webPushBell(let info, _), .webPushOpaque(let info, _, _): info
        }
    }
}
