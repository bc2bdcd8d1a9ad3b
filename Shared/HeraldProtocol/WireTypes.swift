/// The kind of a conversation: a 1:1 chat or a group with a title.
public enum ConversationKind: String, Codable, Sendable {
    case direct
    case group
}

/// The kind of a message's content.
public enum MessageKind: String, Codable, Sendable {
    case text
    case image
    /// A line the server writes into a group's thread when the group changes (G1-G4): `text` is the whole line
    /// ("Alice added Carol"), `sender` is who made the change. Not a message of theirs: it never counts as unread,
    /// never alerts, and cannot be edited or unsent. A client never sends one.
    case system
}

/// One person's reaction to a message.
public struct ReactionInfo: Codable, Sendable, Equatable {
    public var user: String
    public var emoji: String

    public init(user: String, emoji: String) {
        self.user = user
        self.emoji = emoji
    }
}

/// A user as other users see them.
public struct ParticipantInfo: Codable, Sendable, Equatable {
    /// The user's id (the name given to `herald-server token`).
    public var id: String
    /// The display name.
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// One stored message, as every participant sees it.
public struct MessageInfo: Codable, Sendable, Equatable {
    /// Server id, e.g. `m42`.
    public var id: String
    /// Conversation id, e.g. `c3`.
    public var conversation: String
    /// Sender's user id.
    public var sender: String
    /// Sender's display name (so a receiver can render a toast title without a lookup, T10).
    public var senderName: String
    public var kind: MessageKind
    /// The text; empty or absent for an image without caption.
    public var text: String?
    /// The image's URL for `kind == .image`.
    public var imageURL: String?
    /// The sender's idempotency key (R4); echoed so the sender's devices can match their pending sends.
    public var clientMessageId: String?
    /// Server time of the commit, milliseconds since the Unix epoch.
    public var createdAt: Int64
    /// N2: the participants the text mentions (`@id`), absent when none. A recipient listed here is `mentioned`.
    public var mentions: [String]?
    /// True once the sender edited the text (M1); absent otherwise.
    public var edited: Bool?
    /// When the text was last edited, ms since the epoch (M1).
    public var editedAt: Int64?
    /// How many times the text was edited (M1), absent before the first edit: a device applies an edit only when it is
    /// newer than the one it shows (a retried or replayed older edit changes nothing).
    public var editCount: Int?
    /// True when the sender unsent the message (M2): a placeholder without text or image.
    public var unsent: Bool?
    /// In `history` pages: who reacted with what, each person's emoji once, in the order given; absent when none.
    public var reactions: [ReactionInfo]?

    public init(
        id: String, conversation: String, sender: String, senderName: String, kind: MessageKind, text: String?,
        imageURL: String?, clientMessageId: String?, createdAt: Int64, edited: Bool? = nil, editedAt: Int64? = nil, unsent: Bool? = nil
    ) {
        self.edited = edited
        self.editedAt = editedAt
        self.unsent = unsent
        self.id = id
        self.conversation = conversation
        self.sender = sender
        self.senderName = senderName
        self.kind = kind
        self.text = text
        self.imageURL = imageURL
        self.clientMessageId = clientMessageId
        self.createdAt = createdAt
    }
}

/// A conversation as one user sees it in the list.
public struct ConversationInfo: Codable, Sendable, Equatable {
    public var id: String
    public var kind: ConversationKind
    /// Group title; absent for direct conversations (clients show the other participant's name).
    public var title: String?
    public var participants: [ParticipantInfo]
    /// In a conversation list (snapshot, `conversations`): how many participants there are when `participants` lists
    /// only the first of them (a big group); `members` pages through the rest. Absent when the list is complete.
    public var participantCount: Int?
    /// unread(c) for the user this was made for (U1).
    public var unread: Int
    /// The newest message, if any.
    public var lastMessage: MessageInfo?
    /// Time of the newest activity (message or creation), ms since the epoch; the list orders by it.
    public var lastActivity: Int64
    /// N1: the user muted it (absent when not); `mutedUntil` is when the mute ends, absent when it is forever.
    public var muted: Bool?
    public var mutedUntil: Int64?
    /// N4: the user marked it unread (absent when not).
    public var markedUnread: Bool?

    public init(
        id: String, kind: ConversationKind, title: String?, participants: [ParticipantInfo], unread: Int,
        lastMessage: MessageInfo?, lastActivity: Int64
    ) {
        self.id = id
        self.kind = kind
        self.title = title
        self.participants = participants
        self.unread = unread
        self.lastMessage = lastMessage
        self.lastActivity = lastActivity
    }
}

/// The kinds of bell notifications (B1). Messages never appear in the bell.
public enum NotificationKind: String, Codable, Sendable, CaseIterable {
    case follow, reaction, comment, mention, reminder, system
}

/// One bell notification.
public struct NotificationInfo: Codable, Sendable, Equatable {
    /// Server id, e.g. `n7`.
    public var id: String
    public var kind: NotificationKind
    /// The user who caused it, if any.
    public var actor: String?
    public var text: String
    /// Where tapping it leads, a D1 deep link, if anywhere.
    public var url: String?
    public var read: Bool
    public var createdAt: Int64

    public init(id: String, kind: NotificationKind, actor: String?, text: String, url: String?, read: Bool, createdAt: Int64) {
        self.id = id
        self.kind = kind
        self.actor = actor
        self.text = text
        self.url = url
        self.read = read
        self.createdAt = createdAt
    }
}

/// A push alert for a device in the background (P2).
public struct PushInfo: Codable, Sendable, Equatable {
    public var conversation: String
    public var message: String
    public var sender: String
    /// T10 preview text.
    public var preview: String
    /// T10 title ("Sender" or "Group - Sender").
    public var title: String
    /// The D1 deep link to the message's conversation.
    public var url: String
    /// N2: the message mentions the recipient (absent when not).
    public var mentioned: Bool?
    /// N3: the recipient has quiet hours on: show it without sound or banner (absent when not).
    public var quiet: Bool?

    public init(conversation: String, message: String, sender: String, preview: String, title: String, url: String) {
        self.conversation = conversation
        self.message = message
        self.sender = sender
        self.preview = preview
        self.title = title
        self.url = url
    }
}

/// Where a device is, as it reports it (the spec's scene words).
public enum SceneName: String, Codable, Sendable {
    case list, thread, tab, notifications, background
}
