import HeraldProtocol
import HeraldStoreProtocol

/// Records of the store as the wire shows them.
extension MessageRecord {
    /// About how many bytes this message takes in a response: its texts (escaping aside) plus the ids, names and keys
    /// around them. For sizing answers before they are built.
    var approximateWireBytes: Int {
        (text?.utf8.count ?? 0) + (imageURL?.utf8.count ?? 0) + clientMessageId.utf8.count + 256
    }

    func info(senderName: String) -> MessageInfo {
        var info = MessageInfo(
            id: id, conversation: conversation, sender: sender, senderName: senderName, kind: kind.wire,
            text: unsentAt == nil ? text : nil, imageURL: unsentAt == nil ? imageURL : nil, clientMessageId: clientMessageId,
            createdAt: createdAt, edited: editCount > 0 && unsentAt == nil ? true : nil, editedAt: unsentAt == nil ? editedAt : nil,
            unsent: unsentAt != nil ? true : nil)
        if editCount > 0 && unsentAt == nil { info.editCount = editCount }
        return info
    }
}

extension NotificationRecord {
    var info: NotificationInfo {
        NotificationInfo(
            id: id, kind: NotificationKind(rawValue: kind) ?? .system, actor: actor, text: text, url: url, read: read, createdAt: createdAt)
    }
}

extension MessageKind {
    var record: MessageRecord.Kind {
        switch self {
        case .text: .text
        case .image: .image
        case .system: .system
        }
    }
}

extension MessageRecord.Kind {
    var wire: MessageKind {
        switch self {
        case .text: .text
        case .image: .image
        case .system: .system
        }
    }
}

