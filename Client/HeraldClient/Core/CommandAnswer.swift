import HeraldProtocol
import HeraldRules

/// The answer to one command, in command order: what the front end learns about what it asked for. Script mode
/// writes it as an `ok`, `error` or `state` line (``ScriptOutput``); the terminal and HeraldKit read it as it is.
public struct CommandAnswer: Sendable {
    /// The answer's `cmd`: the command's first word (`toast tap` answers as `toast`).
    public var name: String
    public var outcome: Outcome

    public enum Outcome: Sendable {
        case ok(AnswerDetails)
        case error(code: String, message: String)
        /// The answer to `state`: the client as it is now.
        case state(ClientSnapshot)
    }

    public init(name: String, outcome: Outcome) {
        self.name = name
        self.outcome = outcome
    }
}

/// What an `ok` answer carries; nil fields do not apply to the command.
public struct AnswerDetails: Sendable, Equatable {
    public var conversation: String?
    public var message: String?
    /// A send the server had stored already (R4).
    public var duplicate: Bool?
    /// A send answered while it waits in the outgoing queue.
    public var queued: Bool?
    public var clientMessageId: String?
    public var notification: String?
    /// The bell's unread count after `bell read`.
    public var unread: Int?
    public var scene: String?
    /// A deep link waiting for its conversation (D3).
    public var pending: Bool?
    public var url: String?
    /// Why a followed link led back to the list.
    public var error: String?
    public var toast: String?
    /// The thread's viewport after a scroll or an open.
    public var viewport: ViewportAnswer?
    /// The people a `users` or `members` command listed, and whether there were more than it shows.
    public var people: [ParticipantInfo]?
    public var more: Bool?
    /// The messages a `search` found, newest first (`more`: an older page has hits too).
    public var hits: [MessageInfo]?
}

/// The open thread's viewport as a command left it.
public struct ViewportAnswer: Sendable, Equatable {
    public var visible: [String]
    public var atBottom: Bool
    public var newBelow: Int
}

/// The client's state at one moment (the answer to `state`): a copy of the core, read through typed properties.
public struct ClientSnapshot: Sendable {
    let core: ClientCore

    init(_ core: ClientCore) {
        var copy = core
        copy.outputs = []
        self.core = copy
    }

    public var user: String { core.user }
    public var connected: Bool { core.connected }
    public var scene: Scene { core.scene }
    public var badge: Int { core.unread.badge }

    /// The conversations in list order (the most recently active first).
    public var conversations: [ConversationListItem] {
        core.directory.ordered.map { info in
            ConversationListItem(
                id: info.id, title: core.directory.title(of: info.id, me: core.user), unread: core.unread.unread(in: info.id),
                lastPreview: info.lastMessage?.listPreview, lastMessage: info.lastMessage?.id, muted: core.alerts.isMuted(info.id),
                markedUnread: core.unread.markedUnread.contains(info.id))
        }
    }
}

/// One row of the conversation list.
public struct ConversationListItem: Sendable, Equatable {
    public var id: String
    public var title: String
    public var unread: Int
    public var lastPreview: String?
    public var lastMessage: String?
    public var muted: Bool
    public var markedUnread: Bool
}

extension MessageInfo {
    /// The list row's preview: T10's body (cut text, "📷 Image", "New message").
    public var listPreview: String {
        ToastText.messageToast(senderName: senderName, groupTitle: nil, text: text, isImage: kind == .image).body
    }
}
