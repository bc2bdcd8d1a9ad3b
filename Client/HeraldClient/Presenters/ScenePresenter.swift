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
    /// Rows of `thread` above the thread area (the first message is scrolled partly past), and the rows of messages
    /// the area holds (nil: draw them all). A message taller than the area is drawn from any of its rows (U2).
    public var threadSkipRows = 0
    public var threadRows: Int?
    /// The open thread's title (the other person's name, or the group's title) and its members' names.
    public var threadTitle: String = ""
    public var threadMembers: [String] = []
    /// Sends to the open thread the server has not acknowledged yet, oldest first.
    public var pending: [PendingLine] = []
    /// The highlighted row of the list (keyboard selection), set by the terminal.
    public var selectedRow: Int?
    /// Local time's offset from UTC for timestamps, set by the terminal.
    public var utcOffsetSeconds = 0
    /// E1: "Bob is typing…" under the open thread, while others type there.
    public var typingLine: String?
    /// E2: the other person's presence in a 1:1 thread's title ("online", "away", "last seen 14:05").
    public var threadPresence: PresenceState?
    /// Messages unread when the thread was opened that are above the window and not seen since ("N unread above").
    public var unreadAbove = 0
    /// Today's local day (``CalendarDay``), set by the terminal: date separators name the year only for other years.
    public var today: Int64?
    /// The message picked in select mode (its rows are drawn in reverse video), set by the terminal.
    public var selectedMessage: String?

    /// One row of the conversation list.
    public struct ConversationRow: Sendable, Equatable {
        public var id: String
        public var title: String
        public var unread: Int
        public var preview: String
        /// When the last message was written (ms since the epoch), if any.
        public var lastActivity: Int64? = nil
        /// N1: no alerts for it.
        public var muted = false
        /// N4: marked unread by the user.
        public var markedUnread = false
        /// E1: someone else is typing there (the row shows "typing…" instead of the preview).
        public var typing = false
    }

    /// One message of the thread viewport, with what the screen shows around it.
    public struct ThreadLine: Sendable, Equatable {
        public var id: String
        public var sender: String
        public var senderName: String
        /// The whole text (empty for an image without caption).
        public var text: String
        public var imageURL: String? = nil
        public var createdAt: Int64 = 0
        /// Written by this user (shown as "You").
        public var isMine = false
        /// The first message that was unread when the thread was opened: the "new" divider goes above it.
        public var unreadDividerAbove = false
        /// Under your newest message others have read: "Seen" (1:1) or "Seen by …" (group); nil otherwise.
        public var seenBy: String? = nil
        /// The sender edited the text (M1): "(edited)" follows it.
        public var edited = false
        /// The sender unsent it (M2): only a placeholder is left.
        public var unsent = false
        /// A date separator goes above it: the local day (``CalendarDay``) it starts.
        public var dayAbove: Int64? = nil
        /// A line of the server about the group (G5), e.g. "Alice added Carol": drawn as a notice, not as a message.
        public var isSystem = false
        /// The reactions to it, one line under it ("👍 2  ❤️ 1", ``ReactionSummary``); nil when none.
        public var reactions: String? = nil
    }

    /// A send waiting for the server's acknowledgement.
    public struct PendingLine: Sendable, Equatable {
        public var clientMessageId: String
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
        // The kind's colour on its name, so an error reads as one at a glance.
        let head = TerminalStyle.styled("[\(toast.kind.name)]", ToastLook.mark(of: toast.kind)) + " \(toast.title)\(count)\(timer)"
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
        if model.conversations.isEmpty {
            lines += ["", "  No conversations yet. Start one:", "    /dm <user>      talk to someone (/users lists people)",
                      "    /group \"<title>\" <user> <user>…", "  /help lists every command."]
            return lines.map { fit($0, width) }
        }
        // Keep the selected row on screen.
        let room = max(1, height - 1)
        let selected = model.selectedRow ?? 0
        let first = max(0, min(selected - room + 1, model.conversations.count - room))
        for (index, row) in model.conversations.enumerated().dropFirst(first).prefix(room) {
            let badge = row.unread > 0 ? " [\(BadgeText.text(for: row.unread))]" : row.markedUnread ? " [•]" : ""
            let mute = row.muted ? " 🔕" : ""
            let time = row.lastActivity.map { " " + ThreadPresenter.clock($0, offset: model.utcOffsetSeconds) } ?? ""
            let head = "\(index + 1). \(row.title)\(badge)\(mute)"
            let line = fit("\(DisplayWidth.pad(head, to: min(28, width / 3)))\(time)  \(row.typing ? TypingText.listRow : row.preview)", width - 2)
            lines.append(index == model.selectedRow ? "\u{1B}[7m> \(line)\u{1B}[0m" : "  \(line)")
        }
        return lines
    }
}

/// thread(c): the viewport's messages in full (wrapped), names and times, the unread divider, "Seen", sends not yet
/// acknowledged, and the "N new messages" affordance (S3). Rows are laid out by ``ThreadLayout``, which also sizes the
/// viewport, so exactly the drawn messages count as visible.
public struct ThreadPresenter: ScenePresenter {
    public var conversation: String
    public var anchor: String? { Anchor.thread(conversation) }

    public func body(_ model: ScreenModel, width: Int, height: Int) -> [String] {
        let members = model.threadMembers.count > 2 ? " · " + model.threadMembers.joined(separator: ", ") : ""
        let presence = model.threadPresence.map { " · " + PresenceText.title($0, utcOffsetSeconds: model.utcOffsetSeconds) } ?? ""
        let above = model.unreadAbove > 0 ? " · ↑ \(model.unreadAbove) unread above (Alt-U)" : ""
        var lines = [fit("\(model.threadTitle.isEmpty ? conversation : model.threadTitle)\(presence)\(above)\(members)", width)]
        if model.thread.isEmpty && model.pending.isEmpty { lines.append("  No messages yet: type one and press Enter.") }
        let pad = String(repeating: " ", count: ThreadLayout.indent)
        var rows: [String] = []
        for line in model.thread {
            if let day = line.dayAbove { rows.append(fit(CalendarDay.line(day: day, today: model.today), width)) }
            if line.unreadDividerAbove { rows.append(fit("────── new " + String(repeating: "─", count: max(0, width - 11)), width)) }
            let text = ThreadLayout.textLines(line, width: width)
            let time = Self.clock(line.createdAt, offset: model.utcOffsetSeconds)
            let look = MessageLook(line, me: model.user, selected: line.id == model.selectedMessage)
            for (index, part) in text.enumerated() {
                rows.append(index == 0 ? look.firstRow(time: time, text: part) : look.row(pad + look.text(part)))
            }
            if let reactions = line.reactions { rows.append(look.row(pad + reactions)) }
            if let seen = line.seenBy { rows.append(pad + TerminalStyle.styled(seen, .faint)) }
        }
        // Exactly the rows the viewport has in its window: what it counts as seen is what is drawn (U2).
        let shown = rows.dropFirst(max(0, model.threadSkipRows))
        lines += model.threadRows.map { Array(shown.prefix(max(0, $0))) } ?? Array(shown)
        if model.atBottom {
            for pending in model.pending {
                let text = TextWrap.lines(pending.text + ThreadLayout.pendingMark, first: width - ThreadLayout.indent - 5, rest: width - ThreadLayout.indent)
                for (index, part) in text.enumerated() { lines.append(TerminalStyle.styled(index == 0 ? "  ·   You: \(part)" : pad + part, .faint)) }
            }
        }
        if model.newBelow > 0 {
            lines.append(fit("  ↓ \(model.newBelow) new message\(model.newBelow == 1 ? "" : "s") (End)", width))
        }
        return lines
    }

    /// `HH:MM` of a time in milliseconds since the epoch, at `offset` seconds from UTC.
    public static func clock(_ milliseconds: Int64, offset: Int) -> String {
        let minutes = ((milliseconds / 1000 + Int64(offset)) / 60) % 1440
        let positive = minutes < 0 ? minutes + 1440 : minutes
        let hours = positive / 60
        let rest = positive % 60
        return (hours < 10 ? "0" : "") + String(hours) + ":" + (rest < 10 ? "0" : "") + String(rest)
    }
}

/// Any other tab of the app.
public struct TabPresenter: ScenePresenter {
    public var name: String
    public var anchor: String? { "tab(\(name))" }

    public func body(_ model: ScreenModel, width: Int, height: Int) -> [String] { [fit("Tab \(name)", width)] }
}

/// The bell feed (B1-B4): newest first, unread ones marked, with their time.
public struct NotificationsPresenter: ScenePresenter {
    public var anchor: String? { Anchor.notificationsFeed }

    public func body(_ model: ScreenModel, width: Int, height: Int) -> [String] {
        var lines = [fit("Notifications\(model.bellBadgeText.isEmpty ? "" : " (\(model.bellBadgeText))")", width)]
        if model.bellItems.isEmpty { lines.append("  Nothing yet: follows, reactions and mentions show here.") }
        for item in model.bellItems.prefix(max(0, height - 2)) {
            // createdAt is milliseconds since the epoch from the server; a tiny value is only an order.
            let time = item.createdAt > 1_000_000_000_000 ? ThreadPresenter.clock(item.createdAt, offset: model.utcOffsetSeconds) + " " : ""
            lines.append(fit("  \(item.read ? " " : "•") \(time)\(item.text)", width))
        }
        if model.bellItems.contains(where: { !$0.read }) { lines.append(fit("  /read-all marks them read · Esc back", width)) }
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

/// Cuts `text` to `width` columns.
func fit(_ text: String, _ width: Int) -> String { DisplayWidth.truncate(text, to: width) }
