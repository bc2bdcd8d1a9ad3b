import HeraldProtocol
import HeraldRules

/// A message to send whose clientMessageId was chosen before it reached the core: by an app that keeps its unsent
/// messages on disk, so a message sent again after a restart carries the same id and is stored once (R4).
public struct OutgoingSend: Sendable, Equatable, Codable {
    public var conversation: String
    public var clientMessageId: String
    /// A text message's text; nil for an image.
    public var text: String?
    /// An image message's URL; nil for text.
    public var imageURL: String?

    public init(conversation: String, clientMessageId: String, text: String?, imageURL: String?) {
        self.conversation = conversation
        self.clientMessageId = clientMessageId
        self.text = text
        self.imageURL = imageURL
    }
}

extension ClientCore {
    /// Sends `outgoing` now, or queues it until the stream is live; it takes no command slot and answers nothing: its
    /// `message` event (with the clientMessageId) or `send.failed` follows.
    public mutating func send(_ outgoing: OutgoingSend, now: Instant) {
        self.now = now
        stopTypingBeforeSend(in: outgoing.conversation)
        let kind: MessageKind = outgoing.imageURL == nil ? .text : .image
        let request = ClientRequest.send(
            conversation: outgoing.conversation, clientMessageId: outgoing.clientMessageId, kind: kind, text: outgoing.text,
            imageURL: outgoing.imageURL)
        self.request(request, purpose: .send(clientMessageId: outgoing.clientMessageId, answers: false))
        if viewport?.conversation == outgoing.conversation { relayoutThread() }
    }
}
