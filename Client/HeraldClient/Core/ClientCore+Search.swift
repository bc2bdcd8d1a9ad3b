import HeraldProtocol
import HeraldRules

/// `search` and `jump`: the server searches a conversation's whole history; the thread then scrolls to a hit, loading
/// older pages until the hit is among the loaded messages.
extension ClientCore {
    /// Largest history page a jump asks for at once (the server's maximum).
    static let jumpPageSize = 200

    mutating func search(_ conversation: String, text: String, before: String?) {
        // A read: safe to send again after a reconnect.
        request(
            .search(conversation: conversation, text: text, before: before, limit: ProtocolLimits.default.defaultSearchPage),
            purpose: .command(retryable: true))
    }

    mutating func searchAnswered(_ response: ResponseFrame) {
        var details = AnswerDetails()
        details.hits = response.messages ?? []
        if response.hasMore == true { details.more = true }
        answerOK(details)
    }

    /// `jump <message>`: reveals the message in the open thread (centred when it fits, from its first row when it does
    /// not: every row of it can be reached, U2); asks for older pages first while it is not loaded.
    mutating func jump(to message: String) {
        guard let viewport, scene.isViewing(viewport.conversation) else {
            return answerError(code: "not_in_thread", message: "jump needs an open thread")
        }
        continueJump(to: message, in: viewport.conversation)
    }

    /// Reveals `message` when it is loaded, else loads the page before the oldest loaded message, else (the whole
    /// history is loaded, or the server is away) says it is not there.
    mutating func continueJump(to message: String, in conversation: String) {
        guard var viewport, viewport.conversation == conversation, scene.isViewing(conversation) else {
            return answerError(code: "not_in_thread", message: "the thread was left before the message was reached")
        }
        if let change = viewport.reveal(message) {
            self.viewport = viewport
            reportScene()
            return markVisible(change.becameVisible, answers: true)
        }
        let cache = threads[conversation] ?? ThreadCache()
        guard cache.hasOlder, connected else {
            return answerError(code: "not_found", message: connected ? "no message \(message) in this thread" : "offline: the message is not loaded")
        }
        request(
            .history(conversation: conversation, before: cache.messages.first?.id, limit: Self.jumpPageSize),
            purpose: .jump(conversation: conversation, message: message))
    }

    /// One older page for a jump: merged as a scroll above the loaded messages would merge it (without moving the
    /// window), then the jump goes on.
    mutating func jumpPageLoaded(_ response: ResponseFrame, conversation: String, message: String) {
        guard response.ok else { return answerServerError(response) }
        historyLoaded(response, conversation: conversation, mode: .older(scroll: 0, answers: false))
        continueJump(to: message, in: conversation)
    }
}
