import HeraldRules

/// A host loop on virtual time: it wakes the manager at every `nextDeadline`, as the client's loop does,
/// and records each event with the instant it happened.
struct ToastHarness {
    var manager: ToastManager
    private(set) var now = Instant.zero
    private(set) var log: [(at: Int64, event: ToastEvent)] = []
    /// When true, the harness swipes every toast the moment it is shown.
    var swipeOnShow = false

    init(configuration: ToastManager.Configuration = .init(), scene: Scene = .list) {
        manager = ToastManager(configuration: configuration, scene: scene)
    }

    /// Runs the clock to `milliseconds`, ticking at each deadline on the way.
    mutating func advance(to milliseconds: Int64) {
        while let due = manager.nextDeadline, due.milliseconds <= milliseconds {
            now = Swift.max(now, due)
            record(manager.tick(now: now))
        }
        now = Swift.max(now, Instant(milliseconds: milliseconds))
    }

    /// Applies an input at the current instant.
    @discardableResult
    mutating func send(_ input: ToastManager.Input) -> [ToastEvent] {
        let events = manager.handle(input, now: now)
        record(events)
        return events
    }

    private mutating func record(_ events: [ToastEvent]) {
        for event in events {
            log.append((now.milliseconds, event))
            if swipeOnShow, case .shown = event { record(manager.handle(.swipe, now: now)) }
        }
    }

    /// (toast id, instant) of every appearance, in order.
    var appearances: [(id: String, at: Int64)] {
        log.compactMap { entry in
            if case .shown(let toast) = entry.event { return (toast.id, entry.at) }
            return nil
        }
    }

    /// (toast id, reason, instant) of every dismissal, in order.
    var dismissals: [(id: String, reason: ToastDismissReason, at: Int64)] {
        log.compactMap { entry in
            if case .dismissed(let id, let reason) = entry.event { return (id, reason, entry.at) }
            return nil
        }
    }
}

/// A plain local toast, as `toast show info normal <text>` raises.
func localToast(
    _ text: String, kind: ToastKind = .info, priority: ToastPriority = .normal, key: String? = nil,
    duration: Milliseconds? = nil, action: ToastAction? = nil
) -> ToastRequest {
    ToastRequest(kind: kind, title: "Herald", text: text, priority: priority, dedupeKey: key, action: action, duration: duration)
}

/// A message toast from `sender` in `conversation`.
func messageToast(_ conversation: String, from sender: String = "Carol", text: String = "hey") -> ToastRequest {
    .message(conversation: conversation, senderName: sender, groupTitle: nil, text: text, isImage: false)
}
