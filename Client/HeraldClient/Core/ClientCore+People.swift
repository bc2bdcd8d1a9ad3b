import HeraldProtocol

/// The `users` and `members` commands: who this user can talk to, and who is in a conversation. Each follows the
/// server's pages (``PeopleListing``) and answers once with the whole list.
extension ClientCore {
    /// The users the last `users` command listed (with its prefix applied), by id: what the terminal UI completes
    /// names from. Empty until a `users` command was answered.
    public var knownUsers: [ParticipantInfo] { people.knownUsers }

    mutating func listUsers(prefix: String?) {
        // Reads only: safe to send again after a reconnect, from the page it had reached.
        request(people.startUsers(prefix: prefix), purpose: .command(retryable: true))
    }

    mutating func listMembers(of conversation: String) {
        request(people.startMembers(of: conversation), purpose: .command(retryable: true))
    }

    /// One successful page for the active `users` or `members` command: asks for the next, or answers with them all.
    mutating func peoplePageAnswered(_ response: ResponseFrame) {
        let step: PeopleListing.Step
        var details = AnswerDetails()
        switch active?.command {
        case .users(let prefix)?:
            step = people.usersPage(response, prefix: prefix)
        case .members(let conversation)?:
            step = people.membersPage(response, conversation: conversation)
            details.conversation = conversation
        default:
            return
        }
        switch step {
        case .request(let next):
            request(next, purpose: .command(retryable: true))
        case .finished(let people, let more):
            details.people = people
            if more { details.more = true }
            answerOK(details)
        }
    }
}
