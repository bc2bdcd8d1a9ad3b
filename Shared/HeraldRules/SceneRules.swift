/// S1–S7: what a device does when a message arrives, given where the device is.
///
/// One pure function shared by the client (what to render) and the server (whether a device is
/// viewing c, which suppresses pushes under P1).
///
/// ```swift
/// let outcome = SceneRules.arrival(
///     of: ArrivingMessage(conversation: "c1", sender: "bob", isFromMe: false),
///     scene: .list, isForeground: true, viewportAtBottom: false)
/// // outcome.presentation == .toast, outcome.countsAsUnread == true
/// ```
public enum SceneRules {
    /// Decides the presentation of `message` on one device.
    /// - Parameters:
    ///   - message: the arriving message.
    ///   - scene: the device's scene; `background` means not in the foreground whatever `isForeground` says.
    ///   - isForeground: whether the app is in the foreground (false also means background).
    ///   - viewportAtBottom: whether the thread viewport contains the newest message (only read in `thread(c)`).
    public static func arrival(of message: ArrivingMessage, scene: Scene, isForeground: Bool, viewportAtBottom: Bool) -> ArrivalOutcome {
        let foreground = isForeground && scene.isForeground
        let viewing = scene.isViewing(message.conversation, isForeground: foreground)
        if message.isFromMe {
            // S7: never unread, toast or push for the sender; other devices still show it inline or in the list.
            return ArrivalOutcome(
                presentation: viewing ? .inline : .nothing, viewportFollows: viewing && viewportAtBottom,
                countsAsUnread: false, isVisibleAtOnce: viewing && viewportAtBottom)
        }
        if viewing {
            // S1: inline, never a toast or push. S2: at bottom it follows and is read; S3: scrolled up it waits below.
            return ArrivalOutcome(
                presentation: .inline, viewportFollows: viewportAtBottom,
                countsAsUnread: !viewportAtBottom, isVisibleAtOnce: viewportAtBottom)
        }
        // S4/S5: any other foreground scene gets an in-app toast; S6: the background gets a push (P1 may suppress it).
        return ArrivalOutcome(presentation: foreground ? .toast : .push, viewportFollows: false, countsAsUnread: true, isVisibleAtOnce: false)
    }
}

/// The facts `SceneRules` needs about an arriving message.
public struct ArrivingMessage: Hashable, Sendable {
    /// The conversation it arrived in.
    public var conversation: String
    /// The sender's user id.
    public var sender: String
    /// Whether this device's user sent it (S7).
    public var isFromMe: Bool

    /// Makes the description of an arriving message.
    public init(conversation: String, sender: String, isFromMe: Bool) {
        self.conversation = conversation
        self.sender = sender
        self.isFromMe = isFromMe
    }
}

/// How a device presents an arriving message.
public enum MessagePresentation: String, Hashable, Sendable {
    /// Rendered in the open thread (S1).
    case inline
    /// An in-app toast (S4, S5); never an OS-style push.
    case toast
    /// A push, for a background device (S6, P1).
    case push
    /// No alert; the list row still updates (S7 in the list, the sender's other devices).
    case nothing
}

/// The outcome of `SceneRules.arrival(of:scene:isForeground:viewportAtBottom:)`.
public struct ArrivalOutcome: Hashable, Sendable {
    /// Inline, toast, push or nothing.
    public var presentation: MessagePresentation
    /// S2: the thread viewport scrolls to keep the bottom in view.
    public var viewportFollows: Bool
    /// U1: the message stays unread on arrival (from another user and not visible at once).
    public var countsAsUnread: Bool
    /// S2/U2: the message is visible as soon as it renders, so the device acks it as read.
    public var isVisibleAtOnce: Bool

    /// Makes an outcome.
    public init(presentation: MessagePresentation, viewportFollows: Bool, countsAsUnread: Bool, isVisibleAtOnce: Bool) {
        self.presentation = presentation
        self.viewportFollows = viewportFollows
        self.countsAsUnread = countsAsUnread
        self.isVisibleAtOnce = isVisibleAtOnce
    }
}
