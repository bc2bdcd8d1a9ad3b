/// S2, S3, U2, U3: the window of consecutive messages a device shows in `thread(c)`.
///
/// Every change returns the ids that *became* visible: exactly what the device acks as read (U3),
/// nothing else. While the thread is not shown (the app is in the background) nothing becomes visible;
/// showing it again reports the whole window.
///
/// ```swift
/// var (viewport, opened) = ThreadViewport.open(conversation: "c1", messageIDs: ids)
/// // ack opened.becameVisible
/// let change = viewport.append("m11")   // at bottom: follows (S2), m11 became visible
/// ```
public struct ThreadViewport: Sendable {
    /// Messages shown at once unless configured (spec "Viewport": 10).
    public static let defaultSize = 10

    /// The conversation this viewport belongs to.
    public let conversation: String
    /// How many rows the window holds (at least 1). A message takes one row unless `heights` says otherwise, so
    /// by default this is the number of messages shown at once.
    public private(set) var size: Int
    /// Rows a message takes on screen where that is not 1 (a terminal wraps long messages): the window holds as many
    /// consecutive messages as fit whole, and only those count as visible (U2/U3).
    public private(set) var heights: [String: Int] = [:]
    /// The conversation's message ids, oldest first, as far as loaded.
    public private(set) var messageIDs: [String]
    /// Whether the thread is on screen (foreground); only then do messages become visible.
    public private(set) var isShown: Bool
    /// Index in `messageIDs` of the first message in the window.
    private var start: Int
    /// Messages that arrived while scrolled up and have not been seen since (S3).
    private var arrivedBelow = 0

    /// Makes a viewport at the bottom of `messageIDs`. Use `open(...)` to also get the first visible ids.
    public init(
        conversation: String, messageIDs: [String], size: Int = ThreadViewport.defaultSize, heights: [String: Int] = [:],
        isShown: Bool = true
    ) {
        self.conversation = conversation
        self.size = Swift.max(1, size)
        self.heights = heights.filter { $0.value != 1 }
        self.messageIDs = messageIDs.uniqued()
        self.isShown = isShown
        self.start = 0
        self.start = bottomStart
    }

    /// Opens the thread at its bottom (D2) and returns the viewport with the messages that became visible.
    public static func open(
        conversation: String, messageIDs: [String], size: Int = ThreadViewport.defaultSize, heights: [String: Int] = [:],
        isShown: Bool = true
    ) -> (viewport: ThreadViewport, change: ViewportChange) {
        let viewport = ThreadViewport(conversation: conversation, messageIDs: messageIDs, size: size, heights: heights, isShown: isShown)
        return (viewport, ViewportChange(becameVisible: isShown ? viewport.visibleIDs : [], followed: false))
    }

    // MARK: - State

    /// The ids inside the window, oldest first (what `state` prints as `viewport.visible`).
    public var visibleIDs: [String] { Array(messageIDs[window]) }

    /// Whether the window contains the newest message (true for an empty thread).
    public var isAtBottom: Bool { window.upperBound >= messageIDs.count }

    /// S3: how many messages arrived below the window while scrolled up.
    public var newBelow: Int { Swift.min(arrivedBelow, messageIDs.count - window.upperBound) }

    /// The messages from `start` on that fit in `size` rows; always at least one (a message taller than the screen
    /// is shown from its start).
    private var window: Range<Int> {
        let lower = Swift.min(Swift.max(0, start), messageIDs.count)
        if heights.isEmpty { return lower..<Swift.min(lower + size, messageIDs.count) }
        var upper = lower
        var rows = 0
        while upper < messageIDs.count {
            rows += height(of: messageIDs[upper])
            if rows > size && upper > lower { break }
            upper += 1
        }
        return lower..<upper
    }

    /// The first index of the window that ends at the newest message.
    private var bottomStart: Int {
        if heights.isEmpty { return Swift.max(0, messageIDs.count - size) }
        var lower = messageIDs.count
        var rows = 0
        while lower > 0 {
            rows += height(of: messageIDs[lower - 1])
            if rows > size && lower < messageIDs.count { break }
            lower -= 1
        }
        return lower
    }

    private func height(of id: String) -> Int { Swift.max(1, heights[id] ?? 1) }

    // MARK: - Changes

    /// A new message arrived at the end (S2/S3). At bottom the window follows; scrolled up it waits below.
    public mutating func append(_ id: String) -> ViewportChange {
        guard !messageIDs.contains(id) else { return ViewportChange(becameVisible: [], followed: false) }
        let before = Set(visibleIDs)
        let wasAtBottom = isAtBottom
        messageIDs.append(id)
        if wasAtBottom {
            start = bottomStart
        } else {
            arrivedBelow += 1
        }
        return finish(since: before, followed: wasAtBottom)
    }

    /// Older messages loaded (a page); they go before the window, which stays on the same messages.
    public mutating func prependOlder(_ ids: [String]) -> ViewportChange {
        let known = Set(messageIDs)
        let older = ids.uniqued().filter { !known.contains($0) }
        let before = Set(visibleIDs)
        messageIDs.insert(contentsOf: older, at: 0)
        start += older.count
        return finish(since: before)
    }

    /// Moves the window `count` messages towards older ones (no-op at the top).
    public mutating func scrollUp(by count: Int) -> ViewportChange {
        let before = Set(visibleIDs)
        start = Swift.max(0, start - Swift.max(0, count))
        return finish(since: before)
    }

    /// Moves the window `count` messages towards newer ones, stopping at the bottom.
    public mutating func scrollDown(by count: Int) -> ViewportChange {
        let before = Set(visibleIDs)
        // `count` comes from the user (`scroll down <n>`): compare against the distance left instead of adding, so a
        // huge n stops at the bottom rather than overflowing.
        let steps = Swift.max(0, count)
        start = steps > bottomStart - start ? bottomStart : start + steps
        return finish(since: before)
    }

    /// S3: jumps to the bottom, showing (and so reading) what arrived below.
    public mutating func jumpToBottom() -> ViewportChange {
        let before = Set(visibleIDs)
        start = bottomStart
        return finish(since: before)
    }

    /// D2: puts `message` in the window (centred when possible); nil when the id is not loaded.
    public mutating func reveal(_ message: String) -> ViewportChange? {
        guard let index = messageIDs.firstIndex(of: message) else { return nil }
        let before = Set(visibleIDs)
        start = Swift.min(bottomStart, Swift.max(0, index - size / 2))
        return finish(since: before)
    }

    /// The screen changed: the window now holds `size` rows, each message taking `heights[id]` rows (1 when absent).
    /// At the bottom it stays at the bottom (S2); scrolled up, its first message stays first. Returns what entered it.
    public mutating func resize(size: Int, heights: [String: Int] = [:]) -> ViewportChange {
        let before = Set(visibleIDs)
        let wasAtBottom = isAtBottom
        self.size = Swift.max(1, size)
        self.heights = heights.filter { $0.value != 1 }
        if wasAtBottom { start = bottomStart }
        return finish(since: before)
    }

    /// The thread went off screen (background) or came back. Coming back reports the whole window as visible.
    public mutating func setShown(_ shown: Bool) -> ViewportChange {
        let wasShown = isShown
        isShown = shown
        guard shown, !wasShown else { return ViewportChange(becameVisible: [], followed: false) }
        normalize()
        return ViewportChange(becameVisible: visibleIDs, followed: false)
    }

    /// After a mutation: normalizes and reports the ids that entered the window, if the thread is shown.
    private mutating func finish(since before: Set<String>, followed: Bool = false) -> ViewportChange {
        normalize()
        guard isShown else { return ViewportChange(becameVisible: [], followed: followed) }
        return ViewportChange(becameVisible: visibleIDs.filter { !before.contains($0) }, followed: followed)
    }

    /// Keeps `start` in range and forgets the "new below" count once the bottom is in view.
    private mutating func normalize() {
        start = Swift.min(Swift.max(0, start), bottomStart)
        if isAtBottom { arrivedBelow = 0 }
    }
}

/// What one viewport change did.
public struct ViewportChange: Hashable, Sendable {
    /// The ids that entered the window, oldest first: ack exactly these (U3).
    public var becameVisible: [String]
    /// S2: the window followed a new message at the bottom.
    public var followed: Bool

    /// Makes a change record.
    public init(becameVisible: [String], followed: Bool) {
        self.becameVisible = becameVisible
        self.followed = followed
    }
}

extension Array where Element: Hashable {
    /// The elements in order with later duplicates removed.
    fileprivate func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
