import HeraldProtocol
import HeraldRules

/// What a presenter draws from: a read-only view of the client's state.
public struct ScreenModel: Sendable {
    public var user: String
    public var connected: Bool
    public var scene: Scene
    public var conversations: [ConversationRow]
    public var badgeText: String
    public var bellBadgeText: String
    public var bellItems: [BellItem]
    public var thread: [ThreadLine]
    public var atBottom: Bool
    public var newBelow: Int
    public var toast: Toast?
    /// Seconds left on the visible toast (T2 countdown).
    public var toastSecondsLeft: Int?
    public var pendingPushes: Int

    /// One row of the conversation list.
    public struct ConversationRow: Sendable, Equatable {
        public var id: String
        public var title: String
        public var unread: Int
        public var preview: String
    }

    /// One message line of the thread viewport.
    public struct ThreadLine: Sendable, Equatable {
        public var id: String
        public var sender: String
        public var text: String
    }
}

/// One presenter per scene: owns what the scene shows (its anchor and lines) and the toast overlay on it.
/// The shared toast manager decides which toast is visible; the presenter only renders it.
public protocol ScenePresenter: Sendable {
    /// The scene's anchor (spec "Anchors"); nil where the scene has none.
    var anchor: String? { get }
    /// The toast overlay's anchor on this scene.
    var toastAnchor: String? { get }
    /// The scene's body lines for a screen `width` columns wide and at most `height` lines high.
    func body(_ model: ScreenModel, width: Int, height: Int) -> [String]
    /// The toast banner lines over the scene.
    func toastOverlay(_ model: ScreenModel, width: Int) -> [String]
}

extension ScenePresenter {
    public var toastAnchor: String? { Anchor.inAppToast }

    /// The toast banner lines (T1: at most one toast), with a countdown (T2).
    public func toastOverlay(_ model: ScreenModel, width: Int) -> [String] {
        guard let toast = model.toast else { return [] }
        let count = toast.count > 1 ? " (\(toast.count))" : ""
        let timer = model.toastSecondsLeft.map { " [\($0)s]" } ?? ""
        let head = "[\(toast.kind.name)] \(toast.title)\(count)\(timer)"
        return [fit(head, width), fit("  \(toast.text)", width)]
    }
}

/// Picks the presenter of a scene.
public enum ScenePresenters {
    public static func presenter(for scene: Scene) -> any ScenePresenter {
        switch scene {
        case .list: ListPresenter()
        case .thread(let conversation): ThreadPresenter(conversation: conversation)
        case .tab(let name): TabPresenter(name: name)
        case .notifications: NotificationsPresenter()
        case .background: BackgroundPresenter()
        }
    }
}

/// The Messages tab: conversation rows with unread counts (S4).
public struct ListPresenter: ScenePresenter {
    public var anchor: String? { Anchor.conversationsList }

    public func body(_ model: ScreenModel, width: Int, height: Int) -> [String] {
        var lines = [fit("Messages\(model.badgeText.isEmpty ? "" : " (\(model.badgeText))")", width)]
        if model.conversations.isEmpty { lines.append("  (no conversations)") }
        for row in model.conversations.prefix(max(0, height - 1)) {
            let badge = row.unread > 0 ? " [\(BadgeText.text(for: row.unread))]" : ""
            lines.append(fit("  \(row.id) \(row.title)\(badge): \(row.preview)", width))
        }
        return lines
    }
}

/// thread(c): the viewport's messages and the "N new messages" affordance (S3).
public struct ThreadPresenter: ScenePresenter {
    public var conversation: String
    public var anchor: String? { Anchor.thread(conversation) }

    public func body(_ model: ScreenModel, width: Int, height: Int) -> [String] {
        var lines = [fit("Thread \(conversation)", width)]
        if model.thread.isEmpty { lines.append("  (no messages)") }
        for line in model.thread.suffix(max(0, height - 2)) { lines.append(fit("  \(line.sender): \(line.text)", width)) }
        if model.newBelow > 0 {
            lines.append(fit("  v \(model.newBelow) new message\(model.newBelow == 1 ? "" : "s") (scroll bottom)", width))
        } else if model.atBottom {
            lines.append("  --")
        }
        return lines
    }
}

/// Any other tab of the app.
public struct TabPresenter: ScenePresenter {
    public var name: String
    public var anchor: String? { "tab(\(name))" }

    public func body(_ model: ScreenModel, width: Int, height: Int) -> [String] { [fit("Tab \(name)", width)] }
}

/// The bell feed (B1-B4).
public struct NotificationsPresenter: ScenePresenter {
    public var anchor: String? { Anchor.notificationsFeed }

    public func body(_ model: ScreenModel, width: Int, height: Int) -> [String] {
        var lines = [fit("Notifications\(model.bellBadgeText.isEmpty ? "" : " (\(model.bellBadgeText))")", width)]
        if model.bellItems.isEmpty { lines.append("  (none)") }
        for item in model.bellItems.prefix(max(0, height - 1)) {
            lines.append(fit("  \(item.read ? " " : "*") \(item.id) \(item.text)", width))
        }
        return lines
    }
}

/// The app in the background: nothing on screen, pushes counted.
public struct BackgroundPresenter: ScenePresenter {
    public var anchor: String? { nil }
    public var toastAnchor: String? { nil }

    public func body(_ model: ScreenModel, width: Int, height: Int) -> [String] {
        [fit("(in the background: \(model.pendingPushes) push\(model.pendingPushes == 1 ? "" : "es"); type foreground)", width)]
    }

    public func toastOverlay(_ model: ScreenModel, width: Int) -> [String] { [] }
}

/// Cuts `text` to `width` characters.
func fit(_ text: String, _ width: Int) -> String {
    text.count <= width ? text : String(text.prefix(max(0, width - 1))) + "…"
}
