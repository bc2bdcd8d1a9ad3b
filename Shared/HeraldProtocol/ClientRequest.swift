import Foundation
import HeraldRules

/// What a device reports about where it is: the rules' ``Scene`` plus what the wire carries beside it, so the server
/// can decide pushes (P1-P4).
public struct SceneReport: Sendable, Equatable {
    public var scene: Scene
    /// The app's foreground flag as reported; false in `background`.
    public var foreground: Bool
    /// In a thread: whether the viewport shows the newest message.
    public var atBottom: Bool?

    public init(scene: Scene, foreground: Bool, atBottom: Bool? = nil) {
        self.scene = scene
        self.foreground = foreground && scene != .background
        self.atBottom = atBottom
    }

    /// The conversation the device is viewing (S1), if any.
    public var viewing: String? { scene.viewedConversation(isForeground: foreground) }
}

/// One request of herald.v1. Every request carries an id and gets exactly one response with that id.
public enum ClientRequest: Sendable, Equatable {
    /// Start (or resume) the device's stream. `after` is the last event sequence the device saw; nil asks
    /// for a snapshot. The response comes after any replayed events; from then on the stream is live (R1a).
    case sync(after: Int64?)
    /// The user's conversations, most recent activity first, with unread counts.
    case conversations
    /// Find or create the 1:1 conversation with `user`.
    case dm(user: String)
    /// Create a group with `title` and `members` (the creator is added).
    case group(title: String, members: [String])
    /// A page of messages, newest first, older than `before` (a message id) when given.
    case history(conversation: String, before: String?, limit: Int)
    /// A page of the conversation's messages whose text holds every word of `text` (each as a word or its start),
    /// newest first, older than `before` (the last hit of the previous page) when given. Answered from the server's
    /// full-text index over the whole history.
    case search(conversation: String, text: String, before: String?, limit: Int)
    /// Send a text or image message; `clientMessageId` makes retries idempotent (R4).
    case send(conversation: String, clientMessageId: String, kind: MessageKind, text: String?, imageURL: String?)
    /// These messages are now visible on this device (U2, U3): mark exactly them read.
    case ack(messages: [String])
    /// The device's scene changed.
    case scene(SceneReport)
    /// The bell feed (B4), newest first.
    case bell
    /// Mark one bell notification read (B3).
    case bellRead(notification: String)
    /// Mark every bell notification read (B3).
    case bellReadAll
    /// Follow `user`: creates a `follow` bell notification for them.
    case follow(user: String)
    /// React to a message: creates a `reaction` bell notification for its sender.
    case react(message: String, emoji: String)
    /// Sign devices of this user out: every one (`device` nil), or those named `device`. Their live connections close
    /// with 4001 and the tokens they hold are refused from now on (tokens minted afterwards work).
    case signOut(device: String?)
    /// Leave a group: the user stops receiving it and its messages stop counting for them; every participant (the
    /// leaver's devices too) gets a `left` event. A direct conversation cannot be left.
    case leave(conversation: String)
    /// G1: give a group a new title; every participant gets `group.changed` and the line "X renamed the group to …".
    case renameGroup(conversation: String, title: String)
    /// G2: add `user` to a group; they get the conversation, the others `group.changed`, everyone the line "X added Y".
    case addMember(conversation: String, user: String)
    /// G3: take `user` out of a group (the group's creator only; oneself is `leave`): everyone gets `left`, the
    /// others the line "X removed Y".
    case removeMember(conversation: String, user: String)
    /// A page of a conversation's participants, by id, after the id `after` (wire: `cursor`): list answers name only
    /// the first ones of a big group.
    case members(conversation: String, after: String?, limit: Int)
    /// A page of the people the user can start a conversation with: every other user, by id, after the id `after`
    /// (wire: `cursor`), optionally only those whose id or name starts with `prefix` (wire: `text`; ASCII letters
    /// compare case-insensitively). The wire reuses existing keys: the fast scanner has room for only 32.
    case users(after: String?, prefix: String?, limit: Int)
    /// Register (or replace) where this device is alerted while it has no connection (a locked phone): its push
    /// provider and address there. The connection must name its device (`?device=`).
    case pushRegister(PushRegistration)
    /// Forget this device's push target: it is alerted only while connected.
    case pushUnregister
    /// What a push of `--push-preview none` was about: its opaque `ref` (wire: `token`) resolved, once the device is
    /// awake and connected, to the message it alerted for (answer: `message`), so the app can show it and follow its
    /// deep link (D2). Only the user's own pushes resolve.
    case pushResolve(reference: String)
    /// N1: mute a conversation for the user (every device) until `until` (ms since the epoch), or for `minutes` from
    /// when the server takes it (its clock, not the device's), or forever when both are nil.
    case mute(conversation: String, until: Int64?, minutes: Int?)
    /// N1: end the user's mute of a conversation.
    case unmute(conversation: String)
    /// N3: turn the user's quiet hours on or off.
    case quiet(on: Bool)
    /// N4: mark a conversation unread for the user until one of its messages becomes visible (U2).
    case markUnread(conversation: String)
    /// Replace the text of one of the user's own text messages (M1). Wire: `message.edit` {message, text}.
    case editMessage(message: String, text: String)
    /// Take back one of the user's own messages (M2). Wire: `message.unsend` {message}.
    case unsendMessage(message: String)
    /// The user is typing in `conversation` (E1): started, or refreshed. Never stored.
    case typingStart(conversation: String)
    /// The user stopped typing in `conversation` (E1).
    case typingStop(conversation: String)

    /// The wire name of the request's `type` field.
    public var typeName: String {
        switch self {
        case .sync: "sync"
        case .conversations: "conversations"
        case .dm: "dm"
        case .group: "group"
        case .history: "history"
        case .search: "search"
        case .send: "send"
        case .ack: "ack"
        case .scene: "scene"
        case .bell: "bell"
        case .bellRead: "bell.read"
        case .bellReadAll: "bell.readAll"
        case .follow: "follow"
        case .react: "react"
        case .signOut: "signOut"
        case .leave: "leave"
        case .renameGroup: "group.rename"
        case .addMember: "group.add"
        case .removeMember: "group.remove"
        case .members: "members"
        case .users: "users"
        case .pushRegister: "push.register"
        case .pushUnregister: "push.unregister"
        case .pushResolve: "push.resolve"
        case .mute: "mute"
        case .unmute: "unmute"
        case .quiet: "quiet"
        case .markUnread: "markUnread"
        case .editMessage: "message.edit"
        case .unsendMessage: "message.unsend"
        case .typingStart: "typing.start"
        case .typingStop: "typing.stop"
        }
    }
}

/// A request with its id, as it travels.
public struct RequestFrame: Sendable, Equatable {
    public var id: Int
    public var request: ClientRequest

    public init(id: Int, request: ClientRequest) {
        self.id = id
        self.request = request
    }
}

/// A request that could not be decoded, with the id when the frame had a readable one (so the error
/// response can carry it) and the error to answer with.
public struct RequestDecodeFailure: Error, Sendable, Equatable {
    public var id: Int?
    public var error: ErrorInfo
}

/// A device's push target as it arrives (wire fields of `push.register`, backend API body): unchecked beyond sizes.
public struct PushRegistration: Sendable, Equatable {
    /// `apns`, `fcm`, `webpush` or `webhook`.
    public var provider: String
    /// APNs device token (hex), FCM registration token, or the app's id of the device (webhook).
    public var token: String?
    /// APNs: the app's bundle id.
    public var topic: String?
    /// APNs: the development environment.
    public var sandbox: Bool?
    /// Web Push: the subscription's endpoint URL.
    public var endpoint: String?
    /// Web Push: the subscription's public key and auth secret, base64url.
    public var p256dh: String?
    public var auth: String?

    public init(
        provider: String, token: String? = nil, topic: String? = nil, sandbox: Bool? = nil, endpoint: String? = nil, p256dh: String? = nil,
        auth: String? = nil
    ) {
        self.provider = provider
        self.token = token
        self.topic = topic
        self.sandbox = sandbox
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }
}
