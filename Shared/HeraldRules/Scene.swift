/// Where a device is: exactly one of the five scenes of the spec's "Words" section.
///
/// Shared by the client (which reports it in `state`) and the rules (S1–S7, T7, T8, D2).
public enum Scene: Hashable, Sendable, CustomStringConvertible {
    /// The Messages tab's conversation list. A client starts here.
    case list
    /// The thread view of one conversation, by id.
    case thread(String)
    /// Any other tab of the app, in the foreground, by its free-form name.
    case tab(String)
    /// The bell feed.
    case notifications
    /// The app is not in the foreground.
    case background

    /// The scene's name as the client's `state` line spells it: list, thread, tab, notifications, background.
    public var name: String {
        switch self {
        case .list: "list"
        case .thread: "thread"
        case .tab: "tab"
        case .notifications: "notifications"
        case .background: "background"
        }
    }

    /// The conversation shown by `thread(c)`, else nil.
    public var conversation: String? {
        if case .thread(let conversation) = self { return conversation }
        return nil
    }

    /// The tab name of `tab(name)`, else nil.
    public var tabName: String? {
        if case .tab(let name) = self { return name }
        return nil
    }

    /// False only for `background`.
    public var isForeground: Bool { self != .background }

    /// The conversation this scene is viewing ("Viewing c", S1: `thread(c)` with the app in the foreground), if any.
    /// `isForeground` is the app's own flag, for a report whose scene and foreground state arrived separately.
    public func viewedConversation(isForeground: Bool = true) -> String? {
        isForeground ? conversation : nil
    }

    /// Whether this scene is viewing `conversation` (``viewedConversation(isForeground:)``).
    public func isViewing(_ conversation: String, isForeground: Bool = true) -> Bool {
        viewedConversation(isForeground: isForeground) == conversation
    }

    /// The screen anchor of this scene (spec "Anchors"); nil for scenes that have none (`tab`, `background`).
    public var anchor: String? {
        switch self {
        case .list: Anchor.conversationsList
        case .thread(let conversation): Anchor.thread(conversation)
        case .notifications: Anchor.notificationsFeed
        case .tab, .background: nil
        }
    }

    /// "thread(c1)", "tab(settings)", "list".
    public var description: String {
        switch self {
        case .thread(let conversation): "thread(\(conversation))"
        case .tab(let name): "tab(\(name))"
        default: name
        }
    }
}

/// The stable ids a client exposes for its screen (spec "Anchors"); deep links and tests refer to them.
public enum Anchor {
    /// The conversation list.
    public static let conversationsList = "messages.conversationsList"
    /// The in-app toast shown over the list (and the other foreground scenes).
    public static let inAppToast = "messages.conversationsList.inAppToast"
    /// The end of the thread: visible when the viewport is at bottom.
    public static let threadBottom = "messages.thread.bottom"
    /// The "new messages" affordance that jumps to the bottom (S3).
    public static let scrollToBottomButton = "messages.thread.scrollToBottomButton"
    /// The bell feed.
    public static let notificationsFeed = "notifications.feed"

    /// The list row of conversation `id`.
    public static func conversationRow(_ id: String) -> String { "messages.conversationsList.row(\(id))" }
    /// The thread view of conversation `id`.
    public static func thread(_ id: String) -> String { "messages.thread(\(id))" }
    /// Message `id` inside the thread view.
    public static func message(_ id: String) -> String { "messages.thread.message(\(id))" }
}
