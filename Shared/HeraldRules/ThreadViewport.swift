/// S2, S3, U2, U3: the window of consecutive messages a device shows in `thread(c)`: a run of rows, one per message
/// unless `heights` says otherwise (a terminal wraps long messages), so it can start or end inside a message.
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
    /// Rows a message takes on screen where that is not 1 (a terminal wraps long messages). The window is a run of
    /// `size` consecutive rows, so it may show only part of a tall message; such a message counts as visible (U2/U3)
    /// only once every one of its rows has been in the window.
    public private(set) var heights: [String: Int] = [:]
    /// Rows at the top of a message that only decorate it (the "new" divider above the first unread one): they are
    /// part of its height but need not have been seen for the message to count as visible.
    public private(set) var leads: [String: Int] = [:]
    /// The conversation's message ids, oldest first, as far as loaded.
    public private(set) var messageIDs: [String]
    /// Whether the thread is on screen (foreground); only then do messages become visible.
    public private(set) var isShown: Bool
    /// Index in `messageIDs` of the message holding the window's first row.
    private var start: Int
    /// Rows of that message above the window (scrolled past); always less than its height.
    private var skip = 0
    /// U2 for messages taller than one row: which of their rows have been in the shown window so far. Rows seen at
    /// different scroll positions add up, as a reader scrolling through a long text reads it piece by piece. A
    /// layout change that changes a message's height (another terminal width) makes its rows different rows, so its
    /// record starts over: that can only delay a read, never make one early.
    private var seenRows: [String: Set<Int>] = [:]
    /// Messages that arrived while scrolled up and have not been seen since (S3).
    private var arrivedBelow = 0

    /// Makes a viewport at the bottom of `messageIDs`. Use `open(...)` to also get the first visible ids.
    public init(
        conversation: String, messageIDs: [String], size: Int = ThreadViewport.defaultSize, heights: [String: Int] = [:],
        leads: [String: Int] = [:], isShown: Bool = true
    ) {
        self.conversation = conversation
        self.size = Swift.max(1, size)
        self.heights = heights.filter { $0.value != 1 }
        self.leads = leads.filter { $0.value > 0 }
        self.messageIDs = messageIDs.uniqued()
        self.isShown = isShown
        self.start = 0
        setTop(maxTop)
        noteShownRows()
    }

    /// Opens the thread at its bottom (D2) and returns the viewport with the messages that became visible.
    public static func open(
        conversation: String, messageIDs: [String], size: Int = ThreadViewport.defaultSize, heights: [String: Int] = [:],
        leads: [String: Int] = [:], isShown: Bool = true
    ) -> (viewport: ThreadViewport, change: ViewportChange) {
        let viewport = ThreadViewport(
            conversation: conversation, messageIDs: messageIDs, size: size, heights: heights, leads: leads, isShown: isShown)
        return (viewport, ViewportChange(becameVisible: isShown ? viewport.readIDs : [], followed: false))
    }

    // MARK: - State

    /// The ids with at least one row inside the window, oldest first (what `state` prints as `viewport.visible`; with
    /// one row per message, the messages on screen).
    public var visibleIDs: [String] { Array(messageIDs[window]) }

    /// The ids inside the window every row of which has been on screen: what counts as visible for U2/U3.
    public var readIDs: [String] { visibleIDs.filter(isSeenWhole) }

    /// Rows of the first visible message that are above the window (scrolled past); a drawing starts this far into it.
    public var skippedRows: Int { skip }

    /// Rows above the window (in the loaded messages).
    public var rowsAbove: Int { top }

    /// Whether the window contains the newest message's last row (true for an empty thread).
    public var isAtBottom: Bool { top >= maxTop }

    /// S3: how many messages arrived below the window while scrolled up.
    public var newBelow: Int { Swift.min(arrivedBelow, messageIDs.count - window.upperBound) }

    /// The messages with a row in the window `top..<top + size`; always at least one when any are loaded.
    private var window: Range<Int> {
        let lower = Swift.min(Swift.max(0, start), messageIDs.count)
        if heights.isEmpty { return lower..<Swift.min(lower + size, messageIDs.count) }
        var upper = lower
        var rows = -skip
        while upper < messageIDs.count && rows < size {
            rows += height(of: messageIDs[upper])
            upper += 1
        }
        return lower..<upper
    }

    private func height(of id: String) -> Int { Swift.max(1, heights[id] ?? 1) }

    /// Rows of all loaded messages.
    private var totalRows: Int { heights.isEmpty ? messageIDs.count : messageIDs.reduce(0) { $0 + height(of: $1) } }

    /// The window's first row when it shows the newest message's last row.
    private var maxTop: Int { Swift.max(0, totalRows - size) }

    /// The window's first row, counted from the oldest loaded message's first row.
    private var top: Int {
        if heights.isEmpty { return start }
        return messageIDs.prefix(Swift.min(start, messageIDs.count)).reduce(0) { $0 + height(of: $1) } + skip
    }

    /// Puts the window's first row at `row` (kept within the loaded rows).
    private mutating func setTop(_ row: Int) {
        let row = Swift.min(Swift.max(0, row), maxTop)
        if heights.isEmpty {
            start = row
            skip = 0
            return
        }
        var index = 0
        var above = 0
        while index < messageIDs.count, above + height(of: messageIDs[index]) <= row {
            above += height(of: messageIDs[index])
            index += 1
        }
        start = index
        skip = row - above
    }

    /// Whether every row of `id` (its decoration aside) has been on screen (a one-row message: it is in the window).
    private func isSeenWhole(_ id: String) -> Bool {
        let rows = height(of: id)
        guard rows > 1 else { return true }
        let lead = Swift.min(leads[id] ?? 0, rows - 1)
        return (seenRows[id]?.filter { $0 >= lead }.count ?? 0) >= rows - lead
    }

    /// Records the rows of tall messages the shown window holds now.
    private mutating func noteShownRows() {
        guard isShown, !heights.isEmpty else { return }
        var row = -skip
        for id in visibleIDs {
            let rows = height(of: id)
            if rows > 1 {
                let first = Swift.max(0, -row)
                let last = Swift.min(rows, size - row)
                if first < last { seenRows[id, default: []].formUnion(first..<last) }
            }
            row += rows
        }
    }

    // MARK: - Changes

    /// A new message arrived at the end (S2/S3). At bottom the window follows; scrolled up it waits below.
    public mutating func append(_ id: String) -> ViewportChange {
        guard !messageIDs.contains(id) else { return ViewportChange(becameVisible: [], followed: false) }
        let before = Set(readIDs)
        let wasAtBottom = isAtBottom
        messageIDs.append(id)
        if wasAtBottom {
            setTop(maxTop)
        } else {
            arrivedBelow += 1
        }
        return finish(since: before, followed: wasAtBottom)
    }

    /// Older messages loaded (a page); they go before the window, which stays on the same rows.
    public mutating func prependOlder(_ ids: [String]) -> ViewportChange {
        let known = Set(messageIDs)
        let older = ids.uniqued().filter { !known.contains($0) }
        let before = Set(readIDs)
        messageIDs.insert(contentsOf: older, at: 0)
        start += older.count
        return finish(since: before)
    }

    /// Moves the window `count` rows (one row per message unless `heights` says otherwise) towards older ones
    /// (no-op at the top).
    public mutating func scrollUp(by count: Int) -> ViewportChange {
        let before = Set(readIDs)
        // `count` comes from the user: subtract only what is there, so a huge count stops at the top.
        let position = top
        setTop(Swift.max(0, count) >= position ? 0 : position - count)
        return finish(since: before)
    }

    /// Moves the window `count` rows towards newer ones, stopping at the bottom.
    public mutating func scrollDown(by count: Int) -> ViewportChange {
        let before = Set(readIDs)
        // `count` comes from the user (`scroll down <n>`): compare against the distance left instead of adding, so a
        // huge n stops at the bottom rather than overflowing.
        let steps = Swift.max(0, count)
        let position = top
        setTop(steps > maxTop - position ? maxTop : position + steps)
        return finish(since: before)
    }

    /// S3: jumps to the bottom, showing (and so reading) what arrived below.
    public mutating func jumpToBottom() -> ViewportChange {
        let before = Set(readIDs)
        setTop(maxTop)
        return finish(since: before)
    }

    /// D2: puts `message` in the window (centred when it fits, from its first row when it does not; with `atTop`,
    /// from its first row always, as a jump to the first unread shows the most of what follows); nil when the id is
    /// not loaded.
    public mutating func reveal(_ message: String, atTop: Bool = false) -> ViewportChange? {
        guard let index = messageIDs.firstIndex(of: message) else { return nil }
        let before = Set(readIDs)
        let above = messageIDs.prefix(index).reduce(0) { $0 + height(of: $1) }
        setTop(atTop ? above : above - Swift.max(0, (size - height(of: message) + 1) / 2))
        return finish(since: before)
    }

    /// Home: the window at the oldest loaded message's first row.
    public mutating func jumpToTop() -> ViewportChange {
        let before = Set(readIDs)
        setTop(0)
        return finish(since: before)
    }

    /// The screen changed: the window now holds `size` rows, each message taking `heights[id]` rows (1 when absent).
    /// At the bottom it stays at the bottom (S2); scrolled up, its first message stays first. Returns what became
    /// visible whole.
    public mutating func resize(size: Int, heights: [String: Int] = [:], leads: [String: Int] = [:]) -> ViewportChange {
        let before = Set(readIDs)
        let wasAtBottom = isAtBottom
        let newHeights = heights.filter { $0.value != 1 }
        let newLeads = leads.filter { $0.value > 0 }
        for id in seenRows.keys where (newHeights[id] ?? 1) != height(of: id) || newLeads[id] != self.leads[id] { seenRows[id] = nil }
        self.size = Swift.max(1, size)
        self.heights = newHeights
        self.leads = newLeads
        if wasAtBottom {
            setTop(maxTop)
        } else if start < messageIDs.count {
            skip = Swift.min(skip, height(of: messageIDs[start]) - 1)
        }
        return finish(since: before)
    }

    /// The thread went off screen (background) or came back. Coming back reports the whole window as visible.
    public mutating func setShown(_ shown: Bool) -> ViewportChange {
        let wasShown = isShown
        isShown = shown
        guard shown, !wasShown else { return ViewportChange(becameVisible: [], followed: false) }
        normalize()
        noteShownRows()
        return ViewportChange(becameVisible: readIDs, followed: false)
    }

    /// After a mutation: normalizes, records what the window shows and reports the ids that became visible whole,
    /// if the thread is shown.
    private mutating func finish(since before: Set<String>, followed: Bool = false) -> ViewportChange {
        normalize()
        noteShownRows()
        guard isShown else { return ViewportChange(becameVisible: [], followed: followed) }
        return ViewportChange(becameVisible: readIDs.filter { !before.contains($0) }, followed: followed)
    }

    /// Keeps the window within the loaded rows and forgets the "new below" count once the bottom is in view.
    private mutating func normalize() {
        setTop(top)
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
