/// Which conversation the "next with activity" key opens (irssi's Alt-A), sans-IO.
public enum ActivityOrder {
    /// A conversation as the key sees it.
    public struct Entry: Equatable, Sendable {
        public var id: String
        public var unread: Int
        /// Marked unread by the user (N4): counts as activity.
        public var markedUnread: Bool
        /// When its newest message was written (ms since the epoch), if known.
        public var lastActivity: Int64?

        public init(id: String, unread: Int, markedUnread: Bool = false, lastActivity: Int64?) {
            self.id = id
            self.unread = unread
            self.markedUnread = markedUnread
            self.lastActivity = lastActivity
        }
    }

    /// The conversations with activity (unread messages, or marked unread) other than `current`, the most recent
    /// first; ties keep the list's order.
    public static func active(_ entries: [Entry], current: String?) -> [String] {
        entries.enumerated()
            .filter { ($0.element.unread > 0 || $0.element.markedUnread) && $0.element.id != current }
            .sorted { ($0.element.lastActivity ?? .min, -$0.offset) > ($1.element.lastActivity ?? .min, -$1.offset) }
            .map(\.element.id)
    }

    /// The one the key opens: the most recent of ``active(_:current:)``, nil when none has activity.
    public static func next(_ entries: [Entry], current: String?) -> String? { active(entries, current: current).first }
}
