/// What a toast is about, which decides its icon, accent and haptic (T11).
public enum ToastKind: Hashable, Sendable {
    /// Something the user did worked.
    case success
    /// Something failed (also the D3 "conversation unavailable" toast).
    case error
    /// Neutral information; message toasts use this kind.
    case info
    /// Something needs attention.
    case warning
    /// An app-defined look: an icon name, an accent colour name and an optional haptic name.
    case custom(icon: String, accent: String, haptic: String?)

    /// The kind's name as the client prints it: success, error, info, warning, custom.
    public var name: String {
        switch self {
        case .success: "success"
        case .error: "error"
        case .info: "info"
        case .warning: "warning"
        case .custom: "custom"
        }
    }

    /// T11: the haptic the presenter reports when the toast appears; nil for a custom kind without one.
    public var hapticName: String? {
        switch self {
        case .success: "success"
        case .error: "error"
        case .warning: "warning impact"
        case .info: "light impact"
        case .custom(_, _, let haptic): haptic
        }
    }

    /// Parses the built-in kind names (success, error, info, warning); nil for anything else.
    public init?(name: String) {
        switch name {
        case "success": self = .success
        case "error": self = .error
        case "info": self = .info
        case "warning": self = .warning
        default: return nil
        }
    }
}

/// T6: how far a toast may interrupt. Ordered normal < elevated < critical.
public enum ToastPriority: Int, Hashable, Comparable, Sendable, CaseIterable {
    /// Waits its turn in the FIFO queue. Message toasts are normal.
    case normal = 0
    /// Queued ahead of every normal toast.
    case elevated = 1
    /// Replaces a visible lower-priority toast at once and ignores the T3 spacing.
    case critical = 2

    /// Orders by urgency.
    public static func < (lhs: ToastPriority, rhs: ToastPriority) -> Bool { lhs.rawValue < rhs.rawValue }

    /// normal, elevated, critical.
    public var name: String {
        switch self {
        case .normal: "normal"
        case .elevated: "elevated"
        case .critical: "critical"
        }
    }

    /// Parses normal, elevated, critical; nil for anything else.
    public init?(name: String) {
        switch name {
        case "normal": self = .normal
        case "elevated": self = .elevated
        case "critical": self = .critical
        default: return nil
        }
    }
}

/// T9: the one action a toast may carry (e.g. "Undo", "Reply").
public struct ToastAction: Hashable, Sendable {
    /// The button title.
    public var title: String
    /// An app-defined identifier the host acts on when the action fires.
    public var identifier: String

    /// Makes an action.
    public init(title: String, identifier: String) {
        self.title = title
        self.identifier = identifier
    }
}
