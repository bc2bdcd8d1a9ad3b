import HeraldProtocol
import HeraldStoreProtocol

extension SyncCore {
    /// `search`: one page of the conversation's messages holding every word typed, newest first, from the store's
    /// full-text index. Like `history`, only for a participant (R5), and a `before` must be a message of this
    /// conversation; `hasMore` says whether an older page has hits.
    func search(_ conversation: String, text: String, before: String?, limit: Int, user: String, into response: inout ResponseFrame) throws {
        try requireParticipant(user, conversation)
        let words = SearchWords(text)
        guard !words.isEmpty else { throw ErrorInfo(.badRequest, "field 'text' has no word to search for (letters or digits)") }
        if let before {
            guard let cursor = try store.message(id: before), cursor.conversation == conversation else {
                throw ErrorInfo(.notFound, "no such message")
            }
        }
        let page = try store.searchMessages(conversation: conversation, user: user, words: words, before: before, limit: limit + 1)
        var messages: [MessageInfo] = []
        var bytes = 0
        for record in page.prefix(limit) {
            // The same bound as a history answer: hits are whole messages.
            let size = record.approximateWireBytes
            if !messages.isEmpty && bytes + size > configuration.historyAnswerBytes { break }
            messages.append(record.info(senderName: try name(of: record.sender)))
            bytes += size
        }
        response.messages = messages
        response.hasMore = page.count > messages.count
    }
}
