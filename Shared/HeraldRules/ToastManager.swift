/// One device's toast queue (T1–T9): which toast is visible, which wait, and when the next change is due.
///
/// Sans-IO and clock-free: every input carries `now`, and the host wakes the manager at `nextDeadline`
/// by calling `tick(now:)`. Deadlines that passed between two calls are processed in order at the instant
/// they fell due, so a late tick gives the same events as a punctual one.
///
/// ```swift
/// var toasts = ToastManager()
/// var events = toasts.handle(.raise(.message(conversation: "c2", senderName: "Carol", groupTitle: nil,
///                                            text: "hey", isImage: false)), now: now)
/// // later, when the host loop reaches toasts.nextDeadline:
/// events += toasts.tick(now: toasts.nextDeadline ?? now)
/// ```
public struct ToastManager: Sendable {
    /// T7: what happens to a non-message toast raised while the app is in the background.
    public enum BackgroundPolicy: Hashable, Sendable {
        /// Queue it and show it after the return to the foreground (the default).
        case hold
        /// Forget it.
        case drop
    }

    /// Tunables; the defaults are the spec's numbers.
    public struct Configuration: Hashable, Sendable {
        /// T2: duration of a toast that asks for none (default 3 s).
        public var defaultDuration: Milliseconds
        /// T2: every duration is clamped into this range (default 1–10 s).
        public var durationRange: ClosedRange<Milliseconds>
        /// T3: the least time between two appearances (default 800 ms). Critical toasts ignore it (T6).
        public var minimumSpacing: Milliseconds
        /// T4: how many toasts may wait behind the visible one (default 5).
        public var queueCapacity: Int
        /// T7: hold or drop non-message toasts raised in the background (default hold).
        public var backgroundPolicy: BackgroundPolicy

        /// Makes a configuration; every parameter defaults to the spec's value.
        public init(
            defaultDuration: Milliseconds = .seconds(3), durationRange: ClosedRange<Milliseconds> = .seconds(1)...(.seconds(10)),
            minimumSpacing: Milliseconds = 800, queueCapacity: Int = 5, backgroundPolicy: BackgroundPolicy = .hold
        ) {
            self.defaultDuration = defaultDuration
            self.durationRange = durationRange
            self.minimumSpacing = minimumSpacing
            self.queueCapacity = queueCapacity
            self.backgroundPolicy = backgroundPolicy
        }
    }

    /// Everything that can happen to the toast manager.
    public enum Input: Hashable, Sendable {
        /// The app raises a toast (a message toast, or its own feedback).
        case raise(ToastRequest)
        /// The user tapped the visible toast (T9).
        case tap
        /// The user swiped the visible toast away (T9).
        case swipe
        /// The user triggered the visible toast's action (T9).
        case triggerAction
        /// The device changed scene (T7 background pause/resume, T8 purge on entering a thread).
        case sceneChanged(Scene)
        /// Time passed; nothing else happened.
        case tick
        /// Quiet hours went on or off (N3: normal-priority toasts wait while they are on).
        case quietHours(Bool)
        /// The message `request.messageId` was edited (M1): its visible or queued toast takes the new words in place,
        /// keeping its timer, place and count; nothing new appears.
        case revise(ToastRequest)
        /// The message was unsent (M2): its visible or queued toast goes away.
        case withdraw(message: String)
    }

    /// A queued toast with its arrival order, so overflow can find the oldest (T4) whatever the priority order.
    private struct Entry: Sendable {
        var toast: Toast
        var arrival: Int
    }

    /// The tunables in force; changing them affects toasts raised afterwards.
    public var configuration: Configuration
    /// The scene the manager believes the device is in (starts in `list`).
    public private(set) var scene: Scene
    /// The visible toast (T1: at most one), also while its timer is paused in the background.
    public private(set) var visible: Toast?
    /// Toasts waiting behind the visible one, in the order they will appear.
    public var queuedToasts: [Toast] { queue.map(\.toast) }
    /// N3: quiet hours are on, so normal-priority toasts wait in the queue.
    public private(set) var quietHours = false

    private var queue: [Entry] = []
    /// When the visible toast times out; nil while paused in the background or when none is visible.
    private var visibleDeadline: Instant?
    /// The visible toast's time left, kept while its timer is paused (T7).
    private var pausedRemaining: Milliseconds = .zero
    /// When the last toast appeared (T3).
    private var lastAppearance: Instant?
    /// The latest instant seen; an input from an earlier instant is treated as happening now.
    private var clock: Instant = .zero
    private var nextNumber = 1

    /// Makes an empty manager in `scene` (a client starts in `list`).
    public init(configuration: Configuration = Configuration(), scene: Scene = .list) {
        self.configuration = configuration
        self.scene = scene
    }

    // MARK: - API

    /// When the host must call `tick(now:)` next; nil when nothing is pending (or everything is paused).
    public var nextDeadline: Instant? {
        if visible != nil { return visibleDeadline }
        return nextAppearance()
    }

    /// The visible toast's time left at `now` (T7); nil when none is visible.
    public func visibleRemaining(now: Instant) -> Milliseconds? {
        guard visible != nil else { return nil }
        guard let visibleDeadline else { return pausedRemaining }
        return Swift.max(.zero, visibleDeadline - Swift.max(now, clock))
    }

    /// Applies one input at `now` and returns what the host must do, in order.
    ///
    /// Deadlines up to `now` are processed first, each at its own instant.
    public mutating func handle(_ input: Input, now: Instant) -> [ToastEvent] {
        var events = advance(to: now)
        let now = clock
        switch input {
        case .raise(let request): events += enqueue(request, now: now)
        case .tap: events += dismissVisible(.tap, now: now)
        case .swipe: events += dismissVisible(.swipe, now: now)
        case .triggerAction: events += dismissVisible(.action, now: now)
        case .sceneChanged(let scene): events += changeScene(to: scene, now: now)
        case .tick: break
        case .quietHours(let on): quietHours = on
        case .revise(let request): events += revise(request)
        case .withdraw(let message): events += withdraw(message: message, now: now)
        }
        events += showNextIfDue(at: now)
        return events
    }

    /// Processes the deadlines due by `now`. Same as `handle(.tick, now:)`.
    public mutating func tick(now: Instant) -> [ToastEvent] { handle(.tick, now: now) }

    /// Raises a toast. Same as `handle(.raise(request), now:)`.
    public mutating func raise(_ request: ToastRequest, now: Instant) -> [ToastEvent] { handle(.raise(request), now: now) }

    // MARK: - Time

    /// Fires every deadline up to `now` at its own instant, then moves the clock to `now`.
    private mutating func advance(to now: Instant) -> [ToastEvent] {
        var events: [ToastEvent] = []
        while let due = nextDeadline, due <= now {
            let at = Swift.max(due, clock)
            clock = at
            let before = events.count
            if visible != nil, let visibleDeadline, visibleDeadline <= at {
                events += dismissVisible(.timeout, now: at)
            }
            events += showNextIfDue(at: at)
            // Each firing dismisses or shows a toast; if neither happened the deadline cannot move, so stop.
            if events.count == before { break }
        }
        clock = Swift.max(clock, now)
        return events
    }

    /// When the head of the queue may appear: at once for a critical toast (T6), else 800 ms after the last
    /// appearance (T3). Nil when something is visible, the queue is empty, the app is in the background, or quiet hours
    /// hold the head (N3: the queue is in priority order, so a normal head means nothing louder waits).
    private func nextAppearance() -> Instant? {
        guard visible == nil, scene.isForeground, let head = queue.first else { return nil }
        if AlertRules.waitsForQuietHours(head.toast.priority, quiet: quietHours) { return nil }  // N3
        if head.toast.priority == .critical { return clock }
        guard let lastAppearance else { return clock }
        return Swift.max(lastAppearance + configuration.minimumSpacing, clock)
    }

    private mutating func showNextIfDue(at now: Instant) -> [ToastEvent] {
        guard let due = nextAppearance(), due <= now, !queue.isEmpty else { return [] }
        let entry = queue.removeFirst()
        return show(entry.toast, at: now)
    }

    private mutating func show(_ toast: Toast, at now: Instant) -> [ToastEvent] {
        visible = toast
        visibleDeadline = now + toast.duration
        lastAppearance = now
        return [.shown(toast)]
    }

    // MARK: - Inputs

    private mutating func enqueue(_ request: ToastRequest, now: Instant) -> [ToastEvent] {
        // T8 / S1: never notify about the conversation being viewed.
        if let conversation = request.conversation, scene.isViewing(conversation) { return [] }
        if !scene.isForeground {
            // T7: message toasts become pushes in the background; others follow the configured policy.
            if request.isMessage || configuration.backgroundPolicy == .drop { return [] }
        }
        let duration = (request.duration ?? configuration.defaultDuration).clamped(to: configuration.durationRange)
        if let key = request.dedupeKey, let events = coalesce(request, key: key, duration: duration, now: now) {
            return events
        }
        let toast = Toast(
            id: "t\(nextNumber)", kind: request.kind, title: request.title, text: request.text,
            accessibilityLabel: request.accessibilityLabel, conversation: request.conversation, count: 1,
            priority: request.priority, url: request.url, dedupeKey: request.dedupeKey, action: request.action,
            duration: duration, isMessage: request.isMessage, messageId: request.messageId,
            folded: request.messageId.map { [FoldedMessage($0, request)] } ?? [])
        let arrival = nextNumber
        nextNumber += 1
        // T6: a critical toast replaces a visible lower-priority one at once, whatever T3 says.
        if toast.priority == .critical, scene.isForeground, let current = visible, current.priority < .critical {
            var events = dismissVisible(.replaced, now: now)
            events += show(toast, at: now)
            return events
        }
        insert(Entry(toast: toast, arrival: arrival))
        return dropOverflow()
    }

    /// T5: updates the visible or queued toast with the same key in place; nil when there is none.
    private mutating func coalesce(_ request: ToastRequest, key: String, duration: Milliseconds, now: Instant) -> [ToastEvent]? {
        if var current = visible, current.dedupeKey == key {
            current.absorb(request, duration: duration)
            visible = current
            // T5: updating the visible toast restarts its timer (paused in the background: full time left).
            if scene.isForeground {
                visibleDeadline = now + duration
            } else {
                pausedRemaining = duration
            }
            return [.updated(current)]
        }
        guard let index = queue.firstIndex(where: { $0.toast.dedupeKey == key }) else { return nil }
        var entry = queue.remove(at: index)
        entry.toast.absorb(request, duration: duration)
        // Re-inserting keeps the place among equals and moves it ahead when its priority rose.
        insert(entry, before: index)
        return [.updated(entry.toast)]
    }

    /// Inserts behind every toast of the same or higher priority (T6: elevated jumps ahead of normal),
    /// or at `limit` when that comes first (a coalesced toast keeps its place).
    private mutating func insert(_ entry: Entry, before limit: Int? = nil) {
        var index = queue.firstIndex(where: { $0.toast.priority < entry.toast.priority }) ?? queue.endIndex
        if let limit, limit < index { index = limit }
        queue.insert(entry, at: index)
    }

    /// T4: while over capacity, drops the oldest toast of the lowest priority waiting.
    private mutating func dropOverflow() -> [ToastEvent] {
        var events: [ToastEvent] = []
        while queue.count > Swift.max(0, configuration.queueCapacity) {
            guard let lowest = queue.map(\.toast.priority).min(),
                let victim = queue.indices.filter({ queue[$0].toast.priority == lowest }).min(by: { queue[$0].arrival < queue[$1].arrival })
            else { break }
            let dropped = queue.remove(at: victim)
            events.append(.dismissed(id: dropped.toast.id, reason: .overflow))
        }
        return events
    }

    /// T9 / T2 / T6: removes the visible toast; a tap then reports its link, an action its action.
    mutating func dismissVisible(_ reason: ToastDismissReason, now: Instant) -> [ToastEvent] {
        // No presenter in the background: nothing there can be tapped or swiped.
        guard let toast = visible else { return [] }
        if reason == .tap || reason == .swipe || reason == .action, !scene.isForeground { return [] }
        if reason == .action, toast.action == nil { return [] }
        visible = nil
        visibleDeadline = nil
        pausedRemaining = .zero
        var events: [ToastEvent] = [.dismissed(id: toast.id, reason: reason)]
        switch reason {
        case .tap:
            if let url = toast.url { events.append(.openURL(url)) }
        case .action:
            if let action = toast.action { events.append(.actionTriggered(toastID: toast.id, action: action)) }
        default:
            break
        }
        return events
    }

    /// The visible toast changed in place (same id); its timer runs on (M1).
    mutating func replaceVisible(with toast: Toast) {
        visible = toast
    }

    /// A queued toast changed in place (same id, same place).
    mutating func replaceQueued(with toast: Toast) {
        guard let index = queue.firstIndex(where: { $0.toast.id == toast.id }) else { return }
        queue[index].toast = toast
    }

    /// Takes a toast out of the queue.
    mutating func removeQueued(id: String) {
        queue.removeAll { $0.toast.id == id }
    }

    private mutating func changeScene(to newScene: Scene, now: Instant) -> [ToastEvent] {
        let wasForeground = scene.isForeground
        scene = newScene
        if wasForeground, !newScene.isForeground, visible != nil {
            // T7: pause with the time left.
            pausedRemaining = Swift.max(.zero, (visibleDeadline ?? now) - now)
            visibleDeadline = nil
        } else if !wasForeground, newScene.isForeground, visible != nil {
            visibleDeadline = now + pausedRemaining
        }
        guard let conversation = newScene.conversation else { return [] }
        // T8: entering thread(c) removes every visible or queued toast about c.
        var events: [ToastEvent] = []
        if let toast = visible, toast.conversation == conversation {
            visible = nil
            visibleDeadline = nil
            pausedRemaining = .zero
            events.append(.dismissed(id: toast.id, reason: .scene))
        }
        for entry in queue where entry.toast.conversation == conversation {
            events.append(.dismissed(id: entry.toast.id, reason: .scene))
        }
        queue.removeAll { $0.toast.conversation == conversation }
        return events
    }
}

extension Toast {
    /// T5: takes the newer request's words and link, counts one more, never lowers the priority.
    fileprivate mutating func absorb(_ request: ToastRequest, duration: Milliseconds) {
        kind = request.kind
        title = request.title
        text = request.text
        accessibilityLabel = request.accessibilityLabel
        conversation = request.conversation
        url = request.url
        action = request.action ?? action
        priority = Swift.max(priority, request.priority)
        self.duration = duration
        isMessage = request.isMessage
        messageId = request.messageId
        count += 1
        // M1, M2: remember what it stands for, the newest last (a message raised again moves to the end).
        if let message = request.messageId {
            folded.removeAll { $0.messageId == message }
            folded.append(FoldedMessage(message, request))
            if folded.count > Self.foldedLimit { folded.removeFirst(folded.count - Self.foldedLimit) }
        } else {
            folded.removeAll()
        }
    }
}

/// The toast manager's input (`ToastManager.Input`), under the name the issue uses.
public typealias ToastInput = ToastManager.Input
