/// A user account: the id the caller chose (e.g. "alice") and a display name.
public struct UserRecord: Sendable, Equatable {
    /// The caller-chosen id, e.g. "alice".
    public var id: String
    /// The display name.
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// A conversation (thread) with its fixed set of participants.
public struct ConversationRecord: Sendable, Equatable {
    /// Whether the conversation is a 1:1 or a group chat.
    public enum Kind: Int64, Sendable, Equatable {
        /// A 1:1 conversation, unique per unordered pair of users.
        case direct = 0
        /// A group conversation with a title.
        case group = 1
    }

    /// "c1", "c2", …
    public var id: String
    /// Direct or group.
    public var kind: Kind
    /// The group title; nil for direct conversations.
    public var title: String?
    /// The participants' user ids, sorted.
    public var participants: [String]
    /// Creation time, ms since the epoch.
    public var createdAt: Int64
    /// Time of the newest message (or creation when there is none), ms since the epoch.
    public var lastActivity: Int64

    public init(id: String, kind: Kind, title: String?, participants: [String], createdAt: Int64, lastActivity: Int64) {
        self.id = id
        self.kind = kind
        self.title = title
        self.participants = participants
        self.createdAt = createdAt
        self.lastActivity = lastActivity
    }
}

/// One row of a user's conversation list.
public struct ConversationSummary: Sendable, Equatable {
    /// The conversation.
    public var conversation: ConversationRecord
    /// unread(c) for the user the list was asked for (U1).
    public var unreadCount: Int
    /// The newest message, or nil for a conversation without messages.
    public var lastMessage: MessageRecord?

    public init(conversation: ConversationRecord, unreadCount: Int, lastMessage: MessageRecord?) {
        self.conversation = conversation
        self.unreadCount = unreadCount
        self.lastMessage = lastMessage
    }
}

/// A stored message.
public struct MessageRecord: Sendable, Equatable {
    /// What the message carries.
    public enum Kind: Int64, Sendable, Equatable {
        /// A text message.
        case text = 0
        /// An image message (imageURL set, text optional).
        case image = 1
        /// A line of the server about the group (G1-G4): never unread, never edited or unsent.
        case system = 2
    }

    /// "m1", "m2", …
    public var id: String
    /// The conversation id ("c…").
    public var conversation: String
    /// The sender's user id.
    public var sender: String
    /// The id the sending client chose; (sender, clientMessageId) is unique (R4).
    public var clientMessageId: String
    /// Text or image.
    public var kind: Kind
    /// The text, if any.
    public var text: String?
    /// The image URL, if any.
    public var imageURL: String?
    /// Time the server stored it, ms since the epoch.
    public var createdAt: Int64
    /// Storage order: strictly increasing across the whole store, so per-conversation order is
    /// the order of this number (R2). Compare messages by this, never by `createdAt`.
    public var order: Int64
    /// How many times the sender edited the text (M1).
    public var editCount: Int
    /// When the text was last edited, ms since the epoch (M1).
    public var editedAt: Int64?
    /// When the sender unsent it, ms since the epoch (M2); an unsent message keeps no text or image.
    public var unsentAt: Int64?

    public init(
        id: String, conversation: String, sender: String, clientMessageId: String, kind: Kind,
        text: String?, imageURL: String?, createdAt: Int64, order: Int64, editCount: Int = 0, editedAt: Int64? = nil, unsentAt: Int64? = nil
    ) {
        self.editCount = editCount
        self.editedAt = editedAt
        self.unsentAt = unsentAt
        self.id = id
        self.conversation = conversation
        self.sender = sender
        self.clientMessageId = clientMessageId
        self.kind = kind
        self.text = text
        self.imageURL = imageURL
        self.createdAt = createdAt
        self.order = order
    }
}

/// Who read a message and when (U6).
public struct ReadReceipt: Sendable, Equatable {
    /// The reader's user id.
    public var user: String
    /// When the message became read, ms since the epoch.
    public var readAt: Int64

    public init(user: String, readAt: Int64) {
        self.user = user
        self.readAt = readAt
    }
}

/// One entry of a user's durable event stream (R3).
public struct StoredEvent: Sendable, Equatable {
    /// Per-user sequence number: 1, 2, 3, … without gaps.
    public var seq: Int64
    /// The opaque payload (JSON bytes) the caller appended.
    public var payload: [UInt8]
    /// When it was appended, ms since the epoch.
    public var createdAt: Int64

    public init(seq: Int64, payload: [UInt8], createdAt: Int64) {
        self.seq = seq
        self.payload = payload
        self.createdAt = createdAt
    }
}

/// The answer to "give me everything after seq N" (R3).
public enum EventReplay: Sendable, Equatable {
    /// The events after the cursor, in order (possibly empty when the device is up to date).
    case events([StoredEvent])
    /// The cursor is older than the retained log (pruned) or newer than anything stored:
    /// the device must reload instead of resuming.
    case resync
}

/// A bell notification (B1-B4). Message events never become notifications.
public struct NotificationRecord: Sendable, Equatable {
    /// "n1", "n2", …
    public var id: String
    /// The user it belongs to.
    public var user: String
    /// follow, reaction, comment, mention, reminder, system (B1); kept as the caller's string.
    public var kind: String
    /// The user who caused it, if any.
    public var actor: String?
    /// The text shown in the feed.
    public var text: String
    /// Its deep link, if any.
    public var url: String?
    /// Creation time, ms since the epoch.
    public var createdAt: Int64
    /// Whether the user marked it read (B3).
    public var read: Bool

    public init(id: String, user: String, kind: String, actor: String?, text: String, url: String?, createdAt: Int64, read: Bool) {
        self.id = id
        self.user = user
        self.kind = kind
        self.actor = actor
        self.text = text
        self.url = url
        self.createdAt = createdAt
        self.read = read
    }
}

/// A push sent (or about to be sent) to one background device (P1-P5).
public struct PushRecord: Sendable, Equatable {
    /// Outbox row id.
    public var id: Int64
    /// The recipient.
    public var user: String
    /// The recipient's device id.
    public var device: String
    /// Conversation id ("c…").
    public var conversation: String
    /// Message id ("m…").
    public var message: String
    /// Sender's user id.
    public var sender: String
    /// The preview text (T10).
    public var preview: String
    /// The deep link.
    public var url: String
    /// When it was enqueued, ms since the epoch.
    public var createdAt: Int64
    /// When it was withdrawn because the message became read (P5), or nil while active.
    public var withdrawnAt: Int64?

    public init(
        id: Int64, user: String, device: String, conversation: String, message: String, sender: String,
        preview: String, url: String, createdAt: Int64, withdrawnAt: Int64?
    ) {
        self.id = id
        self.user = user
        self.device = device
        self.conversation = conversation
        self.message = message
        self.sender = sender
        self.preview = preview
        self.url = url
        self.createdAt = createdAt
        self.withdrawnAt = withdrawnAt
    }
}

/// A device about to connect, as its token presents it.
public struct Arrival: Sendable, Equatable {
    /// The user and the name the token gives them (a user the store does not hold yet is created with it).
    public var user: UserRecord
    /// The device's name, when it gave one.
    public var device: String?
    /// When its token was issued (seconds since the epoch); nil for a device that came without a token (tests).
    public var issuedAt: Int64?

    public init(user: UserRecord, device: String?, issuedAt: Int64?) {
        self.user = user
        self.device = device
        self.issuedAt = issuedAt
    }
}

/// What the store says of an ``Arrival``.
public struct Admission: Sendable, Equatable {
    /// The user as stored (their stored name wins over the token's).
    public var user: UserRecord
    /// The token was issued before a sign-out of the user (or of this device): refused.
    public var signedOut: Bool

    public init(user: UserRecord, signedOut: Bool) {
        self.user = user
        self.signedOut = signedOut
    }
}

/// A user's bell (B1-B4): their newest notifications and the unread count of all of them.
public struct Bell: Sendable, Equatable {
    /// Newest first.
    public var notifications: [NotificationRecord]
    /// Unread among all the user's notifications (B2's badge), not only those listed.
    public var unread: Int

    public init(notifications: [NotificationRecord], unread: Int) {
        self.notifications = notifications
        self.unread = unread
    }
}
