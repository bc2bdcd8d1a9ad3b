/// A typing or presence change one node tells the others about (E1, E2 across nodes). Never stored: on PostgreSQL it
/// travels as a NOTIFY payload on a channel of its own, which the database does not keep.
public enum EphemeralSignal: Sendable, Equatable {
    /// `user` started or stopped typing in `conversation`; the node where they type ends it (stop, message, silence).
    case typing(node: String, conversation: String, user: String, typing: Bool)
    /// `user`'s presence may have changed on `node`: every node works out the status again from the presence rows; an
    /// offline user was last seen at `lastSeen` (ms since the epoch).
    case presence(node: String, user: String, lastSeen: Int64?)
    /// `conversation` was just created: its participants' devices learn each other's presence (they may have shared
    /// no conversation before).
    case introduced(node: String, conversation: String)

    /// The node that sent it (a node skips its own).
    public var node: String {
        switch self {
        case .typing(let node, _, _, _), .presence(let node, _, _), .introduced(let node, _): node
        }
    }

    /// "typing <node> <conversation> <user> <1|0>", "presence <node> <user> <lastSeen or ->" or "introduced <node>
    /// <conversation>": ids and node ids hold no spaces, so a space separates the fields.
    public var payload: String {
        switch self {
        case .typing(let node, let conversation, let user, let typing): "typing \(node) \(conversation) \(user) \(typing ? 1 : 0)"
        case .presence(let node, let user, let lastSeen): "presence \(node) \(user) \(lastSeen.map(String.init) ?? "-")"
        case .introduced(let node, let conversation): "introduced \(node) \(conversation)"
        }
    }

    /// Reads ``payload``; nil for anything else.
    public init?(payload: String) {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 3, !fields[1].isEmpty, !fields[2].isEmpty else { return nil }
        switch (fields[0], fields.count) {
        case ("typing", 5):
            guard !fields[3].isEmpty, fields[4] == "1" || fields[4] == "0" else { return nil }
            self = .typing(node: fields[1], conversation: fields[2], user: fields[3], typing: fields[4] == "1")
        case ("presence", 4):
            if fields[3] == "-" {
                self = .presence(node: fields[1], user: fields[2], lastSeen: nil)
            } else {
                guard let lastSeen = Int64(fields[3]) else { return nil }
                self = .presence(node: fields[1], user: fields[2], lastSeen: lastSeen)
            }
        case ("introduced", 3):
            self = .introduced(node: fields[1], conversation: fields[2])
        default:
            return nil
        }
    }
}

/// A store shared by several nodes that can carry ``EphemeralSignal``s between them without storing them.
public protocol EphemeralSignalStore: AnyObject {
    /// Sends `signals`, in order, to every node listening (this one included: listeners skip their own node's). Outside
    /// a transaction they go at once; inside one, at its commit. A node sends what one batch produced in one call, so
    /// the cost is per batch, not per typing event.
    func publish(_ signals: [EphemeralSignal]) throws
}
