import HeraldRules

/// A command for the client core, as every front end gives it: typed by the terminal's keys and chat input, called
/// by HeraldKit's session, or parsed from a script line (client-script.md "Input", ``ScriptCommandParser``).
public enum ClientCommand: Equatable, Sendable {
    /// Where `open` goes.
    public enum Destination: Equatable, Sendable {
        case list
        case thread(String)
        case tab(String)
        case notifications
    }

    /// How `scroll` moves the thread viewport.
    public enum ScrollMove: Equatable, Sendable {
        case up(Int)
        case down(Int)
        case bottom
        /// Home: the top of the conversation's history, older pages loaded as needed.
        case top
        /// The first message that was unread when the thread was opened (its "new" divider at the window's top),
        /// older pages loaded as needed.
        case firstUnread
    }

    case state
    case dm(user: String)
    case group(title: String, members: [String])
    case send(conversation: String, text: String)
    case sendImage(conversation: String, url: String)
    case open(Destination)
    case background
    case foreground
    case scroll(ScrollMove)
    case toastTap
    case toastSwipe
    case toastAction
    case toastShow(kind: ToastKind, priority: ToastPriority, key: String?, text: String)
    case pushTap(index: Int?)
    case openURL(String)
    case follow(user: String)
    case leave(conversation: String)
    /// G1: give a group a new title.
    case renameGroup(conversation: String, title: String)
    /// G2: add a user to a group.
    case addMember(conversation: String, user: String)
    /// G3: take a user out of a group (its creator only; yourself: leave).
    case removeMember(conversation: String, user: String)
    /// The people this user can start a conversation with (all other users, or those whose id or name starts with `prefix`).
    case users(prefix: String?)
    /// A conversation's participants, every page.
    case members(conversation: String)
    case signOut(device: String?)
    case react(message: String, emoji: String)
    /// Replace the text of one of this user's messages (M1).
    case edit(message: String, text: String)
    /// Take back one of this user's messages (M2).
    case unsend(message: String)
    case bellRead(notification: String)
    case bellReadAll
    case typingStart(conversation: String)
    case typingStop(conversation: String)
    case sleep(milliseconds: Int)
    /// Lock the phone: the app is suspended and its connection closed; only pushes reach it (`--push webpush`).
    case lock
    case unlock
    case quit
    /// N1: mute a conversation for `minutes`, or until unmuted.
    case mute(conversation: String, minutes: Int?)
    case unmute(conversation: String)
    /// N3: quiet hours on or off.
    case quiet(on: Bool)
    /// N4: mark a conversation unread.
    case markUnread(conversation: String)
    /// One page of the conversation's messages holding every word of `text`, newest first, older than the hit `before`
    /// when given: searched by the server over the whole history.
    case search(conversation: String, text: String, before: String?)
    /// Scroll the open thread so `message` is on screen, loading older history until it is there.
    case jump(message: String)

    /// The `cmd` field of the command's answer: its first word (`toast tap` answers with `"cmd":"toast"`).
    public var name: String {
        switch self {
        case .state: "state"
        case .dm: "dm"
        case .group: "group"
        case .send: "send"
        case .sendImage: "send-image"
        case .open: "open"
        case .background: "background"
        case .foreground: "foreground"
        case .scroll: "scroll"
        case .toastTap, .toastSwipe, .toastAction, .toastShow: "toast"
        case .pushTap: "push"
        case .openURL: "open-url"
        case .follow: "follow"
        case .leave: "leave"
        case .renameGroup: "rename"
        case .addMember: "add-member"
        case .removeMember: "remove-member"
        case .users: "users"
        case .members: "members"
        case .signOut: "sign-out"
        case .react: "react"
        case .edit: "edit"
        case .unsend: "unsend"
        case .bellRead, .bellReadAll: "bell"
        case .typingStart, .typingStop: "typing"
        case .sleep: "sleep"
        case .lock: "lock"
        case .unlock: "unlock"
        case .quit: "quit"
        case .mute: "mute"
        case .unmute: "unmute"
        case .quiet: "quiet"
        case .markUnread: "mark-unread"
        case .search: "search"
        case .jump: "jump"
        }
    }
}
