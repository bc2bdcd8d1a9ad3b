import HeraldProtocol

/// Collects the pages of a `users` or `members` command into one answer, sans-IO: a server page goes in, the next
/// request or the finished list comes out. Keeps the last `users` answer, which the terminal UI completes names from.
struct PeopleListing: Sendable {
    /// Users asked for per page: the server's largest page.
    static let usersPageSize = ProtocolLimits.default.maxUsersPage
    /// Most users one `users` command lists (five pages), so a big server cannot grow one output line without bound;
    /// past it the answer carries `more` and a prefix narrows the list.
    static let usersCap = 1_000
    /// Participants asked for per page: the server's largest page (a group has at most 1,001, so three pages).
    static let membersPageSize = ProtocolLimits.default.maxMembersPage
    /// Most participants one `members` command lists: bounds the pages followed if a server kept saying `hasMore`.
    static let membersCap = 10 * ProtocolLimits.default.maxMembersPage

    /// What follows a page.
    enum Step: Equatable, Sendable {
        /// Ask the server for the next page.
        case request(ClientRequest)
        /// The listing is complete; `more` when the server had more than the listing took.
        case finished([ParticipantInfo], more: Bool)
    }

    /// The last complete `users` answer, by id.
    private(set) var knownUsers: [ParticipantInfo] = []
    /// The pages of the listing in progress.
    private var collected: [ParticipantInfo] = []

    /// Starts a `users` listing: its first request.
    mutating func startUsers(prefix: String?) -> ClientRequest {
        collected = []
        return .users(after: nil, prefix: prefix, limit: Self.usersPageSize)
    }

    /// Starts a `members` listing: its first request.
    mutating func startMembers(of conversation: String) -> ClientRequest {
        collected = []
        return .members(conversation: conversation, after: nil, limit: Self.membersPageSize)
    }

    /// A page of `users` (its `users` and `hasMore`) arrived.
    mutating func usersPage(_ response: ResponseFrame, prefix: String?) -> Step {
        let step = take(response.users ?? [], hasMore: response.hasMore == true, cap: Self.usersCap) { after, room in
            .users(after: after, prefix: prefix, limit: min(Self.usersPageSize, room))
        }
        if case .finished(let users, _) = step { knownUsers = users }
        return step
    }

    /// A page of `members` (its `participants` and `hasMore`) arrived.
    mutating func membersPage(_ response: ResponseFrame, conversation: String) -> Step {
        take(response.participants ?? [], hasMore: response.hasMore == true, cap: Self.membersCap) { after, room in
            .members(conversation: conversation, after: after, limit: min(Self.membersPageSize, room))
        }
    }

    /// Adds a page and decides: the next request after its last id, or the end. A page that does not move the cursor
    /// forward (empty, or not after the previous page) ends the listing, so a confused server cannot loop the client.
    private mutating func take(
        _ page: [ParticipantInfo], hasMore: Bool, cap: Int, next: (_ after: String, _ room: Int) -> ClientRequest
    ) -> Step {
        let previousLast = collected.last?.id
        let room = cap - collected.count
        collected += page.prefix(room)
        let more = hasMore || page.count > room
        if hasMore, collected.count < cap, let last = page.last?.id,
            previousLast.map({ $0.utf8.lexicographicallyPrecedes(last.utf8) }) ?? true {
            return .request(next(last, cap - collected.count))
        }
        defer { collected = [] }
        return .finished(collected, more: more)
    }
}
