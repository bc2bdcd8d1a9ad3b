import HeraldProtocol
import HeraldRules

/// The terminal's thread area: what the viewport is sized to.
public struct ScreenGeometry: Equatable, Sendable {
    /// Columns of the screen.
    public var width: Int
    /// Rows below the thread's title line available to messages, pending sends and the "new messages" line.
    public var rows: Int
    /// Something is drawn over the thread area (the help screen): nothing of the thread is on screen, so nothing
    /// becomes visible (U2) until it is gone.
    public var threadCovered: Bool
    /// The terminal's local time's offset from UTC: where the thread's date separators go.
    public var utcOffsetSeconds: Int

    public init(width: Int, rows: Int, threadCovered: Bool = false, utcOffsetSeconds: Int = 0) {
        self.width = width
        self.rows = rows
        self.threadCovered = threadCovered
        self.utcOffsetSeconds = utcOffsetSeconds
    }
}

/// Where the unread divider of the open thread goes.
struct OpenedUnread: Sendable {
    var conversation: String
    /// Unread messages in the conversation when it was opened.
    var count: Int
    /// The first of them, once the messages are loaded.
    var divider: String?
    /// The newest message when the divider was first placed: the unread ones are counted back from it, so messages
    /// arriving later do not move the divider.
    var countedFrom: String?
    /// Whether the divider is at the real first unread message; false while fewer messages than were unread are
    /// loaded (it then sits on the oldest loaded one and moves when older pages arrive).
    var settled = false
    /// Messages of the conversation seen whole since it was opened (U2): those are no longer "unread above".
    var seen: Set<String> = []
}

extension ClientCore {
    // MARK: - Screen size (U2/U3 count only what is drawn)

    /// The terminal's thread area changed (start, resize): the viewport now holds what fits, and whatever that
    /// brings on screen is read.
    public mutating func setScreen(_ geometry: ScreenGeometry) {
        guard geometry != screenGeometry else { return }
        screenGeometry = geometry
        relayoutThread()
        applyThreadShown()
    }

    /// Whether something covers the thread area now.
    var threadCovered: Bool { screenGeometry?.threadCovered ?? false }

    /// Shows or hides the open thread's viewport as the screen covers or uncovers it; what uncovering brings on
    /// screen is read (U2).
    mutating func applyThreadShown() {
        guard var viewport else { return }
        let shown = scene.isViewing(viewport.conversation) && !threadCovered
        guard shown != viewport.isShown else { return }
        let change = viewport.setShown(shown)
        self.viewport = viewport
        markVisible(change.becameVisible)
    }

    /// Rows (or, without a screen, messages) the viewport of `conversation` holds.
    func viewportRows(_ conversation: String) -> Int {
        guard let screenGeometry else { return configuration.viewportSize }
        let pendingRows = pendingSends(in: conversation).reduce(0) { $0 + ThreadLayout.rows(pending: $1, width: screenGeometry.width) }
        // One row stays for the "N new messages" line.
        return max(1, screenGeometry.rows - 1 - pendingRows)
    }

    /// Rows each message of `conversation` takes on the screen; empty without a screen (one message, one row).
    func viewportHeights(_ conversation: String) -> [String: Int] {
        guard let screenGeometry else { return [:] }
        var heights: [String: Int] = [:]
        for line in threadLines(conversation) {
            heights[line.id] = ThreadLayout.rows(line, width: screenGeometry.width)
        }
        return heights
    }

    /// Rows at the top of messages of `conversation` that only decorate them (a date separator, the "new" divider):
    /// empty without a screen.
    func viewportLeads(_ conversation: String) -> [String: Int] {
        guard screenGeometry != nil else { return [:] }
        var leads: [String: Int] = [:]
        for line in threadLines(conversation) where ThreadLayout.leadRows(line) > 0 { leads[line.id] = ThreadLayout.leadRows(line) }
        return leads
    }

    /// Re-sizes the viewport to the screen and the current messages; what that brings on screen is read (U2/U3).
    mutating func relayoutThread() {
        guard screenGeometry != nil, var viewport else { return }
        let wasAtBottom = viewport.isAtBottom
        let change = viewport.resize(
            size: viewportRows(viewport.conversation), heights: viewportHeights(viewport.conversation), leads: viewportLeads(viewport.conversation))
        self.viewport = viewport
        if scene.isViewing(viewport.conversation) { markVisible(change.becameVisible) }
        if viewport.isAtBottom != wasAtBottom { reportScene() }
    }

    // MARK: - What the thread shows

    /// Every loaded message of `conversation` with its decorations (divider, "Seen"), oldest first, as drawn: the
    /// viewport is sized on the same drawable text the presenter wraps.
    func threadLines(_ conversation: String) -> [ScreenModel.ThreadLine] {
        guard let cache = threads[conversation] else { return [] }
        let divider = openedUnread?.conversation == conversation ? openedUnread?.divider : nil
        let seen = seenLine(conversation, cache: cache)
        // Date separators only where a screen draws the thread: above a message written on another local day than the
        // one before it, and above the conversation's first message (not the first loaded one: an older page may
        // still be on the same day).
        let offset = screenGeometry?.utcOffsetSeconds
        return cache.messages.enumerated().map { index, message in
            let previous = index > 0 ? cache.messages[index - 1].createdAt : nil
            let day = offset.flatMap { offset in
                index == 0 && cache.hasOlder ? nil : CalendarDay.separator(previous: previous, current: message.createdAt, utcOffsetSeconds: offset)
            }
            return ScreenModel.ThreadLine(
                id: message.id, sender: message.sender, senderName: message.senderName, text: message.text ?? "",
                imageURL: message.imageURL, createdAt: message.createdAt, isMine: message.sender == user,
                unreadDividerAbove: message.id == divider, seenBy: seen?.message == message.id ? seen?.text : nil,
                edited: message.edited == true, unsent: message.unsent == true, dayAbove: day, isSystem: message.kind == .system,
                // An unsent message is a placeholder (M2): nothing of it is left to react to.
                reactions: message.unsent == true ? nil : ReactionSummary.text(reactions[message.id] ?? [])
            ).drawable
        }
    }

    /// U6 on screen: under my newest message, who has read it ("Seen" in a 1:1 conversation).
    private func seenLine(_ conversation: String, cache: ThreadCache) -> (message: String, text: String)? {
        guard let readers = receipts[conversation], !readers.isEmpty,
              let mine = cache.messages.lastIndex(where: { $0.sender == user && $0.kind != .system }) else { return nil }
        let positions = Dictionary(cache.messages.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        let who = readers.filter { (positions[$0.value] ?? -1) >= mine }.map(\.key).sorted()
        guard !who.isEmpty else { return nil }
        let info = directory[conversation]
        if info?.kind != .group { return (cache.messages[mine].id, "Seen") }
        let names = who.map { reader in info?.participants.first { $0.id == reader }?.name ?? reader }
        return (cache.messages[mine].id, "Seen by " + names.joined(separator: ", "))
    }

    /// Sends to `conversation` waiting for the server, oldest first (in flight, then queued).
    func pendingSends(in conversation: String) -> [ScreenModel.PendingLine] {
        let waiting = inFlight.sorted { $0.key < $1.key }.map(\.value) + deferred + pacedSends
        return waiting.compactMap { request, _ in
            guard case .send(let target, let clientMessageId, let kind, let text, let imageURL) = request, target == conversation else { return nil }
            return ScreenModel.PendingLine(clientMessageId: clientMessageId, text: kind == .image ? "[image] \(imageURL ?? "")" : text ?? "").drawable
        }
    }

    /// Remembers where the unread messages start when a thread opens (the divider stays put while they are read).
    mutating func noteOpenedUnread(_ conversation: String) {
        openedUnread = OpenedUnread(conversation: conversation, count: unread.unread(in: conversation), divider: nil)
        placeDivider()
    }

    /// Puts the divider above the oldest unread message once the thread's messages are loaded. With more unread
    /// messages than the first page holds, it sits on the oldest loaded one until older pages reach the real one.
    mutating func placeDivider() {
        guard var opened = openedUnread, !opened.settled, opened.count > 0,
              let cache = threads[opened.conversation], !cache.messages.isEmpty else { return }
        let messages = cache.messages
        if opened.countedFrom == nil { opened.countedFrom = messages.last?.id }
        let end = messages.lastIndex { $0.id == opened.countedFrom } ?? messages.count - 1
        var remaining = opened.count
        for message in messages[...end].reversed() where message.sender != user {
            remaining -= 1
            if remaining == 0 {
                opened.divider = message.id
                break
            }
        }
        opened.settled = remaining == 0 || !cache.hasOlder
        if remaining > 0 { opened.divider = messages.first { $0.sender != user }?.id }
        openedUnread = opened
    }

    /// A receipt: `reader` read my `message` (and everything before it) in `conversation`.
    mutating func noteReceipt(conversation: String, message: String, reader: String) {
        guard reader != user else { return }
        receipts[conversation, default: [:]][reader] = message
        if viewport?.conversation == conversation { relayoutThread() }
    }
}
