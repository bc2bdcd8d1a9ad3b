import HeraldRules

/// The kind of a toast (T11: each has its haptic).
public typealias ToastKind = HeraldRules.ToastKind
/// How urgently a toast asks to be seen (T4, N2, N3).
public typealias ToastPriority = HeraldRules.ToastPriority
/// A user's presence (E2).
public typealias PresenceStatus = HeraldRules.PresenceStatus
/// Why a toast went away: its time ran out, a tap or swipe, a more urgent one, the scene, or a full queue (T rules).
public typealias ToastDismissReason = HeraldRules.ToastDismissReason

/// Something that happened, in the order it happened: what an app shows, counts or routes.
public enum HeraldEvent: Sendable, Equatable {
    /// The connection changed state.
    case connection(ConnectionState)
    /// A message reached the device: live, through resume after a reconnect, or sent by this user once stored.
    /// Exactly one per message (R3).
    case message(Message)
    /// A message now reads differently (M1).
    case edited(conversation: String, message: String, text: String)
    /// A message was taken back (M2).
    case unsent(conversation: String, message: String)
    /// This user's read state changed (U rules): the conversation's unread count and the app badge now.
    case read(conversation: String, messages: [String], unread: Int, badge: Int)
    /// Another user read one of this user's messages (U6).
    case receipt(conversation: String, message: String, reader: String)
    /// Who is typing in a conversation now (E1), in the order they started; empty when nobody is.
    case typing(conversation: String, users: [String])
    /// A user's presence changed (E2); `lastSeen` in ms since the epoch when offline and known.
    case presence(user: String, status: PresenceStatus, lastSeen: Int64?)
    /// The bell's unread count changed (B rules); `pulse` when it went up.
    case bell(unread: Int, badgeText: String, pulse: Bool)
    /// A toast to present now (T rules, N1-N3 already applied).
    case toastShown(ToastPresentation)
    /// The toast on screen changed in place (a newer message folded in, an edit).
    case toastUpdated(ToastPresentation)
    /// A toast went away, and why.
    case toastDismissed(id: String, reason: ToastDismissReason)
    /// A deep link was followed (D rules): where the app now is; `error` names why a link led back to the list.
    case route(url: String, scene: String, conversation: String?, error: String?)
    /// The server stored a message this session sent (or had stored it already: a repeat after a restart is stored
    /// once, R4); it left the pending messages. Its ``message(_:)`` follows unless this device showed it before.
    case stored(clientMessageId: String, message: String)
    /// A message this session sent was refused for good (it will not be retried); it left the unsent store.
    case sendFailed(clientMessageId: String, code: String, message: String)
    /// A mute, a mark or quiet hours changed on one of this user's devices (N1, N3, N4).
    case settingsChanged(conversation: String?)
    /// A user left a group this user is in.
    case left(conversation: String, user: String)
    /// `user` reacted with `emoji` to `message` (each user's emoji counts once per message).
    case reaction(conversation: String, message: String, user: String, emoji: String)
    /// The configuration's push token was registered for this device; `device` is the device's name on the server.
    case pushRegistered(device: String)
    /// The server refused the push token: its error code (`bad_request` for a malformed token, `conflict` when it has
    /// no credentials for the provider) and message.
    case pushRegistrationRefused(code: String, message: String)
}

/// One message as it reached the device.
public struct Message: Sendable, Equatable {
    /// The conversation's id.
    public var conversation: String
    /// The server's id.
    public var id: String
    /// The sender's user id.
    public var sender: String
    /// The sender's display name.
    public var senderName: String
    /// The text; nil for an image.
    public var text: String?
    /// An image message's URL.
    public var imageURL: String?
    /// The stream position it came at.
    public var sequence: Int64?
    /// The id this device gave it, when this user sent it from here (R4).
    public var clientMessageId: String?
    /// N2: this user is mentioned.
    public var mentionsMe: Bool
    /// G5: a line of the server about the group ("Alice added Carol", `text`), to show as a notice, not as someone's
    /// message; `sender` is who made the change. It never counts as unread and cannot be edited or unsent.
    public var isSystem: Bool

    /// A message as the session reports it (an app makes one for previews and tests).
    public init(conversation: String, id: String, sender: String, senderName: String, text: String?, imageURL: String? = nil,
                sequence: Int64? = nil, clientMessageId: String? = nil, mentionsMe: Bool = false, isSystem: Bool = false) {
        self.isSystem = isSystem
        self.conversation = conversation
        self.id = id
        self.sender = sender
        self.senderName = senderName
        self.text = text
        self.imageURL = imageURL
        self.sequence = sequence
        self.clientMessageId = clientMessageId
        self.mentionsMe = mentionsMe
    }
}

/// A toast to put on screen: what to show, how urgently, where a tap leads.
public struct ToastPresentation: Sendable, Equatable {
    /// The toast's id, which later updates and the dismissal name.
    public var id: String
    /// Its look and haptic (T11).
    public var kind: ToastKind
    /// The headline: the sender or the group for a message.
    public var title: String
    /// The body: what only others wrote is safe to show (it was checked for controls).
    public var text: String
    /// What a screen reader says.
    public var accessibilityLabel: String
    /// The conversation a message toast is about.
    public var conversation: String?
    /// How many messages it stands for (T6 folds several into one).
    public var count: Int
    /// How urgent it is: elevated and critical ones show during quiet hours (N3).
    public var priority: ToastPriority
    /// The deep link a tap follows (T9).
    public var url: String?
    /// N2: it is there because this user was mentioned.
    public var mentionsMe: Bool

    /// A toast as the session presents it (an app makes one for previews and tests).
    public init(id: String, kind: ToastKind, title: String, text: String, accessibilityLabel: String, conversation: String? = nil,
                count: Int = 1, priority: ToastPriority = .normal, url: String? = nil, mentionsMe: Bool = false) {
        self.id = id
        self.kind = kind
        self.title = title
        self.text = text
        self.accessibilityLabel = accessibilityLabel
        self.conversation = conversation
        self.count = count
        self.priority = priority
        self.url = url
        self.mentionsMe = mentionsMe
    }
}

/// One conversation in list order (the most recently active first).
public struct ConversationSummary: Sendable, Equatable {
    /// The conversation's id.
    public var id: String
    /// What the list shows: the other person's name, or the group's title.
    public var title: String
    /// Messages not read on any of the user's devices (U rules).
    public var unread: Int
    /// The newest message's preview.
    public var lastPreview: String?
    /// Its alerts are muted (N1).
    public var muted: Bool

    /// A row of the list as the session reports it (an app makes one for previews and tests).
    public init(id: String, title: String, unread: Int, lastPreview: String? = nil, muted: Bool = false) {
        self.id = id
        self.title = title
        self.unread = unread
        self.lastPreview = lastPreview
        self.muted = muted
    }
}

/// Where the app is, as the S rules see it: what it reports decides toasts, pushes and what counts as read.
public enum SceneChange: Sendable, Equatable {
    /// The conversation list.
    case list
    /// One conversation's thread: its visible messages count as read (U2).
    case thread(String)
    /// Any other tab, by name.
    case tab(String)
    /// The bell feed.
    case notifications
    /// The app left the foreground.
    case background
    /// The app came back to the scene it left.
    case foreground
}
