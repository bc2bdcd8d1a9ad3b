/// A toast the manager knows about: visible or waiting in the queue.
///
/// Field names match the client's `toast` JSON object (client-script.md).
public struct Toast: Hashable, Sendable, Identifiable {
    /// Deterministic id from the manager's counter: "t1", "t2", …
    public var id: String
    /// Kind (T11).
    public var kind: ToastKind
    /// Title line, e.g. the sender or "Group - Sender" (T10).
    public var title: String
    /// Body line, already cut for display (T10).
    public var text: String
    /// The full, uncut text for assistive technology (T10).
    public var accessibilityLabel: String
    /// The conversation the toast is about, if any (T8 purges by it).
    public var conversation: String?
    /// How many raised toasts this one stands for after coalescing (T5); 1 when none coalesced.
    public var count: Int
    /// Priority (T6).
    public var priority: ToastPriority
    /// The deep link a tap follows (T9, D2), if any.
    public var url: String?
    /// Coalescing key (T5); message toasts use the conversation id.
    public var dedupeKey: String?
    /// The single optional action (T9).
    public var action: ToastAction?
    /// How long the toast stays visible, already clamped to the configured range (T2).
    public var duration: Milliseconds
    /// True for a toast about an arriving message; in the background those become pushes instead (T7).
    public var isMessage: Bool
    /// The message whose preview the toast shows (the newest one it stands for), so an edit or unsend of that message
    /// can change or remove it (M1, M2); nil for other toasts.
    public var messageId: String? = nil
    /// The messages a message toast stands for, oldest first (the newest ones, up to ``foldedLimit``), each with the
    /// words it would show: an edit of one updates its words, an unsend of the shown one falls back to the one before
    /// (M1, M2). The last is the one shown.
    public var folded: [FoldedMessage] = []

    /// How many folded messages a toast remembers; older ones still count in `count` but can no longer be shown.
    public static let foldedLimit = 20

    /// T11: the haptic to report when this toast appears.
    public var hapticName: String? { kind.hapticName }
}

/// One message a coalesced message toast stands for (T5), with the words its toast shows for it and the edit they
/// reflect (M1).
public struct FoldedMessage: Hashable, Sendable {
    public var messageId: String
    public var title: String
    public var text: String
    public var accessibilityLabel: String
    /// The edit these words reflect (0: as sent; nil: unknown), so an older edit arriving late is not applied (M1).
    public var editCount: Int?

    public init(messageId: String, title: String, text: String, accessibilityLabel: String, editCount: Int?) {
        self.messageId = messageId
        self.title = title
        self.text = text
        self.accessibilityLabel = accessibilityLabel
        self.editCount = editCount
    }

    /// The words `request` asks to show for `messageId`.
    init(_ messageId: String, _ request: ToastRequest) {
        self.init(messageId: messageId, title: request.title, text: request.text, accessibilityLabel: request.accessibilityLabel,
                  editCount: request.editCount)
    }
}

/// What the app asks the toast manager to show.
///
/// ```swift
/// let saved = ToastRequest(kind: .success, title: "Saved", text: "Profile updated")
/// let message = ToastRequest.message(conversation: "c2", senderName: "Carol", groupTitle: nil, text: "hey", isImage: false)
/// ```
public struct ToastRequest: Hashable, Sendable {
    /// Kind (T11).
    public var kind: ToastKind
    /// Title line.
    public var title: String
    /// Body line as it should be displayed.
    public var text: String
    /// Full text for assistive technology; defaults to `text`.
    public var accessibilityLabel: String
    /// The conversation this is about, if any.
    public var conversation: String?
    /// Priority (T6).
    public var priority: ToastPriority
    /// Deep link to follow on tap.
    public var url: String?
    /// Coalescing key (T5).
    public var dedupeKey: String?
    /// Optional single action (T9).
    public var action: ToastAction?
    /// Requested duration; nil means the manager's default. Clamped to 1–10 s by default (T2).
    public var duration: Milliseconds?
    /// True for message toasts (T7: they are not held in the background, they become pushes).
    public var isMessage: Bool
    /// The message this toast is about, if any (M1, M2 find its toast by it).
    public var messageId: String? = nil
    /// M1: the edit the words reflect (0: as sent), so a revision older than the one shown changes nothing; nil when
    /// unknown (then every revision applies).
    public var editCount: Int? = nil

    /// Makes a request; `accessibilityLabel` defaults to `text`.
    public init(
        kind: ToastKind, title: String, text: String, accessibilityLabel: String? = nil, conversation: String? = nil,
        priority: ToastPriority = .normal, url: String? = nil, dedupeKey: String? = nil, action: ToastAction? = nil,
        duration: Milliseconds? = nil, isMessage: Bool = false
    ) {
        self.kind = kind
        self.title = title
        self.text = text
        self.accessibilityLabel = accessibilityLabel ?? text
        self.conversation = conversation
        self.priority = priority
        self.url = url
        self.dedupeKey = dedupeKey
        self.action = action
        self.duration = duration
        self.isMessage = isMessage
    }

    /// A message toast (S4/S5): T10 text, kind info, priority normal, keyed by conversation (T5),
    /// tapping opens `herald://conversation/<id>` (D2).
    public static func message(
        conversation: String, senderName: String, groupTitle: String?, text: String?, isImage: Bool,
        duration: Milliseconds? = nil, messageId: String? = nil, editCount: Int? = nil
    ) -> ToastRequest {
        let preview = ToastText.messageToast(senderName: senderName, groupTitle: groupTitle, text: text, isImage: isImage)
        var request = ToastRequest(
            kind: .info, title: preview.title, text: preview.body, accessibilityLabel: preview.accessibilityLabel,
            conversation: conversation, priority: .normal, url: DeepLink.conversation(conversation).url,
            dedupeKey: conversation, duration: duration, isMessage: true)
        request.messageId = messageId
        request.editCount = editCount
        return request
    }
}

/// Why a toast left the screen or the queue. Raw values are the client's `reason` strings.
public enum ToastDismissReason: String, Hashable, Sendable, CaseIterable {
    /// Its duration ran out (T2).
    case timeout
    /// The user tapped it (T9); the manager then reports the link to follow.
    case tap
    /// The user swiped it away (T9).
    case swipe
    /// A critical toast pre-empted it (T6).
    case replaced
    /// The device entered the thread the toast is about (T8).
    case scene
    /// The queue was full and this was its oldest entry (T4).
    case overflow
    /// The user triggered its action (T9).
    case action
    /// The message it showed was unsent (M2).
    case withdrawn
}

/// What the manager tells its host after an input: apply these in order.
public enum ToastEvent: Hashable, Sendable {
    /// `toast` became the visible toast. Report `toast.hapticName` with it (T11).
    case shown(Toast)
    /// A visible or queued toast changed in place by coalescing (T5).
    case updated(Toast)
    /// The toast with this id left the screen or the queue.
    case dismissed(id: String, reason: ToastDismissReason)
    /// T9 tap: after the dismissal, follow this deep link (through the `DeepLinkRouter`).
    case openURL(String)
    /// T9 action: the user triggered the visible toast's action (after its dismissal with reason `action`).
    case actionTriggered(toastID: String, action: ToastAction)
}
