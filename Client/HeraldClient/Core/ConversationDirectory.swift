import HeraldProtocol
import HeraldRules

/// The user's conversations in list order (most recent activity first, S4), as this device knows them.
struct ConversationDirectory {
    private(set) var byId: [String: ConversationInfo] = [:]
    /// Ids, most recent activity first.
    private(set) var order: [String] = []

    /// The conversations in list order.
    var ordered: [ConversationInfo] { order.compactMap { byId[$0] } }

    func contains(_ id: String) -> Bool { byId[id] != nil }

    subscript(id: String) -> ConversationInfo? { byId[id] }

    /// Replaces everything with a server list (already in list order).
    mutating func replace(with list: [ConversationInfo]) {
        byId = [:]
        order = []
        for info in list where byId[info.id] == nil {
            byId[info.id] = info
            order.append(info.id)
        }
    }

    /// Adds or refreshes one conversation; a new one goes where its activity puts it.
    mutating func upsert(_ info: ConversationInfo) {
        var info = info
        if let known = byId[info.id] {
            // Keep the newer of the two last messages: a live message may be newer than this description.
            if let mine = known.lastMessage, mine.createdAt > (info.lastMessage?.createdAt ?? Int64.min) {
                info.lastMessage = mine
                info.lastActivity = max(info.lastActivity, known.lastActivity)
            }
            byId[info.id] = info
            return
        }
        byId[info.id] = info
        let index = order.firstIndex { (byId[$0]?.lastActivity ?? 0) <= info.lastActivity } ?? order.endIndex
        order.insert(info.id, at: index)
    }

    /// The conversation is gone from this user's list (they left it).
    mutating func remove(_ id: String) {
        guard byId.removeValue(forKey: id) != nil else { return }
        order.removeAll { $0 == id }
    }

    /// `user` is no longer among the conversation's participants.
    mutating func removeParticipant(_ user: String, from id: String) {
        byId[id]?.participants.removeAll { $0.id == user }
    }

    /// G1, G2: a known group takes its new title and participants and keeps everything that is this user's (counts,
    /// mute, last message); an unknown one is added.
    mutating func changeGroup(_ info: ConversationInfo) {
        guard var known = byId[info.id] else { return upsert(info) }
        known.title = info.title
        known.participants = info.participants
        known.participantCount = info.participantCount
        byId[info.id] = known
    }

    /// S4: a message arrived in its conversation: the row's preview updates and it moves to the top.
    /// Returns false when the conversation is unknown.
    @discardableResult
    mutating func noteMessage(_ message: MessageInfo) -> Bool {
        guard var info = byId[message.conversation] else { return false }
        if let last = info.lastMessage, last.createdAt > message.createdAt { return true }
        info.lastMessage = message
        info.lastActivity = max(info.lastActivity, message.createdAt)
        byId[message.conversation] = info
        order.removeAll { $0 == message.conversation }
        order.insert(message.conversation, at: 0)
        return true
    }

    /// M1, M2: the row's last message was edited (`message`, same id) or unsent (then the row shows `fallback`, the
    /// message before it). The row keeps its place: a change to an old message is no new activity.
    mutating func reviseLastMessage(_ message: MessageInfo, fallback: MessageInfo?) {
        guard var info = byId[message.conversation], info.lastMessage?.id == message.id else { return }
        info.lastMessage = message.unsent == true ? fallback : message
        byId[message.conversation] = info
    }

    /// The row title: the group's title, or the other participant's name for a 1:1 conversation.
    func title(of id: String, me: String) -> String {
        guard let info = byId[id] else { return id }
        return Self.title(of: info, me: me)
    }

    static func title(of info: ConversationInfo, me: String) -> String {
        if info.kind == .group, let title = info.title { return title }
        return info.participants.first { $0.id != me }?.name ?? info.participants.first?.name ?? info.id
    }

    /// The group title T10 puts before the sender's name; nil for a 1:1 conversation.
    func groupTitle(of id: String) -> String? {
        guard let info = byId[id], info.kind == .group else { return nil }
        return info.title
    }
}

/// The loaded messages of one conversation, oldest first.
struct ThreadCache {
    var messages: [MessageInfo] = []
    /// Whether older messages exist on the server beyond the first loaded one.
    var hasOlder = true
    /// Whether the newest page was loaded, so live arrivals can be appended.
    var reachesNewest = false

    var ids: [String] { messages.map(\.id) }

    /// Merges a page (newest first, as the server sends it) into the cache.
    mutating func merge(page: [MessageInfo]) {
        var known = Set(messages.map(\.id))
        var merged = messages
        for message in page.reversed() where known.insert(message.id).inserted { merged.append(message) }
        messages = merged.sorted { ($0.createdAt, Self.number($0.id)) < ($1.createdAt, Self.number($1.id)) }
    }

    /// Appends a live arrival if the newest page is loaded.
    mutating func append(_ message: MessageInfo) {
        guard reachesNewest, !messages.contains(where: { $0.id == message.id }) else { return }
        messages.append(message)
    }

    /// Orders ids like "m12" numerically after the timestamp, so equal timestamps keep the server's order (R2).
    static func number(_ id: String) -> Int { Int(id.drop { !$0.isNumber }) ?? 0 }
}
