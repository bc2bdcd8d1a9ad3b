import HeraldProtocol
import HeraldRules

extension ClientCore {
    /// Sends a message whose clientMessageId was chosen before it reached the core: by an app that keeps its unsent
    /// messages on disk, so a message sent again after a restart carries the same id and is stored once (R4). It goes
    /// now, or waits until the stream is live; it takes no command slot and answers nothing: its `message` event (with
    /// the clientMessageId) or `send.failed` follows. `imageURL` makes it an image message, else `text` is its text.
    public mutating func send(to conversation: String, clientMessageId: String, text: String?, imageURL: String?, now: Instant) {
        self.now = now
        stopTypingBeforeSend(in: conversation)
        let kind: MessageKind = imageURL == nil ? .text : .image
        let request = ClientRequest.send(conversation: conversation, clientMessageId: clientMessageId, kind: kind, text: text, imageURL: imageURL)
        self.request(request, purpose: .send(clientMessageId: clientMessageId, answers: false))
        if viewport?.conversation == conversation { relayoutThread() }
    }
}
