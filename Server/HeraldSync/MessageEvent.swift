import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol

/// The `message` event of a newly stored message (R1), as every participant's stream holds it: the message as the wire
/// shows it, with the participants it mentions (N2).
///
/// A send over /sync builds it here. PostgreSQL's `herald_send_message` (an application publishing from its own
/// transaction) must write its event in the same transaction as the message, under the nodes' write lock, so that the
/// stream order is the store order (R2) and the event is there for a device that resumes right after the commit (R3);
/// it writes the same bytes in SQL (`PostgresSchema+SendMessage.swift`), and MultiNodeSQLPublishEventTests hold the two
/// byte-equal for every kind of message.
enum MessageEvent {
    /// The message as its live event and its sender's answer carry it: `mentions` only when there are some.
    static func info(of record: MessageRecord, senderName: String, in conversation: ConversationRecord) -> MessageInfo {
        withMentions(record.info(senderName: senderName), of: record, in: conversation)
    }

    /// `info` (``MessageRecord/info(senderName:)`` of `record`) with the participants `record` mentions.
    static func withMentions(_ info: MessageInfo, of record: MessageRecord, in conversation: ConversationRecord) -> MessageInfo {
        let mentions = mentions(of: record, in: conversation)
        guard !mentions.isEmpty else { return info }
        var info = info
        info.mentions = mentions
        return info
    }

    /// The event's body without `seq` (each receiver's is spliced in on delivery).
    static func body(_ info: MessageInfo) -> [UInt8] {
        var event = EventFrame(event: .message)
        event.message = info
        return event.encodeBody()
    }

    /// N2: the participants a message mentions, other than its sender; only in groups (in a 1:1 every message is for
    /// the other person already).
    static func mentions(of record: MessageRecord, in conversation: ConversationRecord) -> [String] {
        guard conversation.kind == .group else { return [] }
        return MentionParser.mentions(in: record.text, participants: conversation.participants.lazy.filter { $0 != record.sender })
    }
}
