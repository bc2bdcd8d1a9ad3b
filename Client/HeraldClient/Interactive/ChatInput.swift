import HeraldRules

/// What the person at the terminal can refer to when typing: the scene, the conversation list, people.
public struct ChatContext: Sendable {
    public var me: String
    public var scene: Scene
    /// Conversations in list order: id and title.
    public var conversations: [(id: String, title: String)]
    /// User ids known to this device (conversation participants, `/users` answers), for completion.
    public var users: [String]
    /// In a thread: the newest message from someone else (the default target of `/react`).
    public var newestFromOthers: String?
    /// In a thread: this user's newest message still shown (what `/edit` and `/unsend` change).
    public var newestMine: String?
    /// In a thread: the ids of its participants (what `@` completes to).
    public var participants: [String]
    /// In a thread: the message picked in select mode; `/edit`, `/unsend` and `/react` act on it instead of the newest.
    public var selected: Selected?

    /// A picked message: only one's own can be changed (M1, M2).
    public struct Selected: Equatable, Sendable {
        public var id: String
        public var mine: Bool
        public var senderName: String
    }

    public init(
        me: String, scene: Scene, conversations: [(id: String, title: String)], users: [String], newestFromOthers: String?, newestMine: String? = nil,
        participants: [String] = []
    ) {
        self.participants = participants
        self.newestMine = newestMine
        self.me = me
        self.scene = scene
        self.conversations = conversations
        self.users = users
        self.newestFromOthers = newestFromOthers
    }
}

/// What a typed line does.
public enum ChatAction: Equatable, Sendable {
    /// Send a message with exactly this text: it is never read as a command, so quotes, backslashes and slashes
    /// after the first character go out as typed.
    case send(conversation: String, text: String)
    /// Run these commands, in order.
    case commands([ClientCommand])
    /// Show the help screen.
    case help
    /// Tell the person something (a mistake, a hint); nothing is run.
    case notice(String)
    /// Something that cannot be undone (signing every device out, leaving a group): ask `question`, and run the
    /// commands only on a yes.
    case confirm(question: String, commands: [ClientCommand])
    /// Nothing (a blank line).
    case nothing
}

/// Chat-style input, sans-IO: in a thread plain text is a message; commands start with `/` (`//` sends a line that
/// starts with a slash), and only those: a bare word outside a thread runs nothing, however much it looks like a
/// command (a stray `sign-out` on the list must not sign every device out). Script commands work after a slash. A
/// typed line becomes typed commands here, once: nothing is turned back into command text.
public enum ChatInput {
    /// One command the chat input accepts: the one table the interpreter resolves names through, Tab completes
    /// from and `/help` lists, so the help cannot leave out a command that works.
    public struct Command: Sendable {
        public var name: String
        public var usage: String
        public var summary: String
        /// Other names that run it (`/q` for `/quit`).
        public var aliases: [String] = []
        /// A script command (client-script.md), run by ``ScriptCommandParser`` as written after the slash.
        public var script = false
    }

    /// Every command, in the order `/help` lists them: chat commands, then the script commands a slash also runs.
    public static let commands: [Command] = [
        Command(name: "dm", usage: "/dm <user>", summary: "talk to someone"),
        Command(name: "group", usage: "/group \"<title>\" <user> <user>…", summary: "start a group"),
        Command(name: "open", usage: "/open <number | name>", summary: "open a conversation of the list"),
        Command(name: "back", usage: "/back", summary: "back to the list (Esc)", aliases: ["list"]),
        Command(name: "users", usage: "/users [<prefix>]", summary: "people you can message"),
        Command(name: "members", usage: "/members", summary: "who is in this conversation"),
        Command(name: "image", usage: "/image <url>", summary: "send an image"),
        Command(name: "react", usage: "/react [<message>] <emoji>", summary: "react (newest, or the one ^S picks)"),
        Command(name: "edit", usage: "/edit <text>", summary: "change yours (newest, or the one ^S picks)"),
        Command(name: "unsend", usage: "/unsend", summary: "take back yours (newest, or ^S pick)"),
        Command(name: "bottom", usage: "/bottom", summary: "jump to the newest message (End)"),
        Command(name: "search", usage: "/search <words>", summary: "find messages in this conversation (n/N, Esc)"),
        Command(name: "unread", usage: "/unread", summary: "mark this conversation unread"),
        Command(name: "mute", usage: "/mute [<minutes>]", summary: "no alerts from this conversation"),
        Command(name: "unmute", usage: "/unmute", summary: "alerts again"),
        Command(name: "quiet", usage: "/quiet on|off", summary: "quiet hours: pushes silent, toasts wait"),
        Command(name: "follow", usage: "/follow <user>", summary: "follow someone"),
        Command(name: "leave", usage: "/leave", summary: "leave this group (asks first)"),
        Command(name: "rename", usage: "/rename <title>", summary: "rename this group (G1)"),
        Command(name: "add", usage: "/add <user>", summary: "add someone to this group (G2)"),
        Command(name: "remove", usage: "/remove <user>", summary: "remove someone from this group (asks first, G3)"),
        Command(name: "bell", usage: "/bell", summary: "the notifications (^B)", aliases: ["notifications"]),
        Command(name: "read-all", usage: "/read-all", summary: "mark every notification read"),
        Command(name: "open-url", usage: "/open-url <link>", summary: "follow a herald:// link", script: true),
        Command(name: "sign-out", usage: "/sign-out [<device>]", summary: "sign devices out (asks first)"),
        Command(name: "background", usage: "/background", summary: "act as if the app went away"),
        Command(name: "foreground", usage: "/foreground", summary: "back from /background"),
        Command(name: "help", usage: "/help", summary: "this help", aliases: ["?", "h"]),
        Command(name: "quit", usage: "/quit", summary: "leave herald (asks if a draft would be lost)", aliases: ["exit", "q"]),
        Command(name: "state", usage: "/state", summary: "the client's state in one line", script: true),
        Command(name: "scroll", usage: "/scroll up|down <n> · top · unread · bottom", summary: "move the thread", script: true),
        Command(name: "send", usage: "/send <conversation> <text>", summary: "send to any conversation", script: true),
        Command(name: "send-image", usage: "/send-image <conversation> <url>", summary: "send an image anywhere", script: true),
        Command(name: "mark-unread", usage: "/mark-unread <conversation>", summary: "mark any conversation unread", script: true),
        Command(name: "toast", usage: "/toast tap|swipe|action|show …", summary: "act on the toast", script: true),
        Command(name: "push", usage: "/push tap [<index>]", summary: "open a received push", script: true),
        Command(name: "typing", usage: "/typing start|stop <conversation>", summary: "report typing", script: true),
        Command(name: "lock", usage: "/lock · /unlock", summary: "as if the phone locked: pushes only", script: true),
        Command(name: "unlock", usage: "/unlock", summary: "back from /lock", script: true),
        Command(name: "sleep", usage: "/sleep <ms>", summary: "wait (for scripts)", script: true),
    ]

    /// The command `name` runs (by name or alias), nil for none.
    public static func command(named name: String) -> Command? {
        commands.first { $0.name == name || $0.aliases.contains(name) }
    }

    /// What `line` does in `context`.
    public static func interpret(_ line: String, in context: ChatContext) -> ChatAction {
        let trimmed = line.trimmingSpaces
        if trimmed.isEmpty { return .nothing }
        let open = context.scene.conversation
        if trimmed.hasPrefix("//") {
            guard let open else { return .notice("open a conversation first to send a message") }
            return .send(conversation: open, text: String(trimmed.dropFirst()))
        }
        guard trimmed.hasPrefix("/") else {
            if let open { return .send(conversation: open, text: trimmed) }
            if case .success? = ScriptCommandParser.parse(trimmed) {
                return .notice("commands start with /: type /\(trimmed.prefix(40)) to run it")
            }
            return .notice("No conversation is open: Enter opens one · commands start with / (/help)")
        }
        let body = String(trimmed.dropFirst())
        let words = body.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let name = words.first ?? ""
        let arguments = Array(words.dropFirst())
        let rest = String(body.dropFirst(name.count)).trimmingSpaces
        if name.isEmpty { return .help }
        // Only what the table holds runs: a name it lacks is a typo, answered with the nearest names.
        guard let command = command(named: name) else {
            return .notice(CommandSuggestion.notice(unknown: name, among: commands.map(\.name)))
        }
        switch command.name {
        case "help": return .help
        case "back": return .commands([.open(.list)])
        case "bell": return .commands([.open(.notifications)])
        case "read-all": return .commands([.bellReadAll])
        case "bottom": return .commands([.scroll(.bottom)])
        case "quit": return .commands([.quit])
        case "dm":
            guard arguments.count == 1 else { return .notice("usage: /dm <user>") }
            if arguments[0] == context.me { return .notice("that is you: /dm someone else (/users lists people)") }
            return .commands([.dm(user: arguments[0])])
        case "group":
            guard arguments.count >= 2 else { return .notice("usage: /group \"<title>\" <user> <user>…") }
            // The title may be quoted (`/group "Book club" bob carol`): the script syntax reads it.
            switch ScriptCommandParser.parse("group " + rest) {
            case .success(let command)?: return .commands([command])
            case .failure(let error)?: return .notice(error.message)
            case nil: return .notice("usage: /group \"<title>\" <user> <user>…")
            }
        case "open":
            guard !rest.isEmpty else { return .notice("usage: /open <number | name | id>") }
            guard let id = conversation(named: rest, in: context) else { return .notice("no conversation \"\(rest)\" in your list") }
            return .commands([.open(.thread(id))])
        case "image":
            guard let open else { return .notice("open a conversation first") }
            guard arguments.count == 1 else { return .notice("usage: /image <url>") }
            return .commands([.sendImage(conversation: open, url: arguments[0])])
        case "react":
            switch arguments.count {
            case 1:
                if let selected = context.selected { return .commands([.react(message: selected.id, emoji: arguments[0])]) }
                guard let target = context.newestFromOthers else { return .notice("nothing to react to here: /react <message> <emoji>") }
                return .commands([.react(message: target, emoji: arguments[0])])
            case 2: return .commands([.react(message: arguments[0], emoji: arguments[1])])
            default: return .notice("usage: /react [<message>] <emoji>")
            }
        case "edit":
            guard !rest.isEmpty else { return .notice("usage: /edit <new text> (changes your last message)") }
            if let selected = context.selected {
                guard selected.mine else { return .notice(notYours(selected, "edited")) }
                return .commands([.edit(message: selected.id, text: rest)])
            }
            guard let mine = context.newestMine else { return .notice("no message of yours here to edit") }
            return .commands([.edit(message: mine, text: rest)])
        case "unsend":
            guard arguments.isEmpty else { return .notice("usage: /unsend (takes back your last message)") }
            if let selected = context.selected {
                guard selected.mine else { return .notice(notYours(selected, "unsent")) }
                return .commands([.unsend(message: selected.id)])
            }
            guard let mine = context.newestMine else { return .notice("no message of yours here to unsend") }
            return .commands([.unsend(message: mine)])
        case "search":
            guard let open else { return .notice("open a conversation first: /search finds messages in it") }
            guard !rest.isEmpty else { return .notice("usage: /search <words> (in a conversation)") }
            return .commands([.search(conversation: open, text: rest, before: nil)])
        case "members":
            guard let target = arguments.first ?? open else { return .notice("usage: /members <conversation>") }
            return .commands([.members(conversation: target)])
        case "leave":
            guard let target = arguments.first ?? open else { return .notice("usage: /leave (in a group)") }
            let title = context.conversations.first { $0.id == target }?.title ?? target
            return .confirm(question: "Leave \(TerminalText.line(title))? You will not see its new messages. (y/N)", commands: [.leave(conversation: target)])
        case "rename", "add", "remove":
            return groupChange(name, rest: rest, arguments: arguments, in: context)
        case "sign-out":
            guard arguments.count <= 1 else { return .notice("usage: /sign-out [<device>]") }
            let whom = arguments.first.map { "the device \(TerminalText.line($0))" } ?? "every device of yours (this one too)"
            return .confirm(question: "Sign out \(whom)? Its tokens stop working. (y/N)", commands: [.signOut(device: arguments.first)])
        case "mute":
            // In a conversation: /mute [minutes]; on the list: /mute <number | name> [minutes].
            var words = arguments
            let target: String
            if let open {
                target = open
            } else {
                guard let reference = words.first, let id = conversation(named: reference, in: context) else {
                    return .notice("usage: /mute [<minutes>] in a conversation, or /mute <number | name> [<minutes>]")
                }
                target = id
                words.removeFirst()
            }
            guard words.count <= 1, words.allSatisfy({ Int($0).map { $0 > 0 } == true }) else { return .notice("usage: /mute [<minutes>]") }
            return .commands([.mute(conversation: target, minutes: words.first.flatMap { Int($0) })])
        case "unmute":
            guard let target = arguments.first ?? open else { return .notice("usage: /unmute (in the conversation)") }
            return .commands([.unmute(conversation: target)])
        case "unread":
            guard let target = arguments.first ?? open else { return .notice("usage: /unread (in the conversation)") }
            // Marked unread, then back to the list: staying would show its messages and so read it again (N4, U2).
            return .commands([.markUnread(conversation: target), .open(.list)])
        default:
            switch ScriptCommandParser.parse(body) {
            case .success(let command)?: return .commands([command])
            case .failure(let error)?: return .notice(error.message)
            case nil: return .nothing
            }
        }
    }

    /// M1/M2: why a picked message of someone else's cannot be changed.
    static func notYours(_ selected: ChatContext.Selected, _ verb: String) -> String {
        "that is \(TerminalText.line(selected.senderName))'s message: only your own can be \(verb)"
    }

    /// A conversation by its list number (1 is the top), id, or title (exact, then a unique prefix; any case).
    static func conversation(named reference: String, in context: ChatContext) -> String? {
        if let number = Int(reference), context.conversations.indices.contains(number - 1) { return context.conversations[number - 1].id }
        if context.conversations.contains(where: { $0.id == reference }) { return reference }
        let lowered = reference.lowercased()
        if let exact = context.conversations.first(where: { $0.title.lowercased() == lowered }) { return exact.id }
        let matches = context.conversations.filter { $0.title.lowercased().hasPrefix(lowered) }
        return matches.count == 1 ? matches[0].id : nil
    }

    // MARK: - Tab completion

    /// Completes the word before the end of `line`: a command name after `/`, else a user id or a conversation
    /// (by title) depending on the command. Returns the new line (nil when nothing matches) and every match.
    public static func complete(_ line: String, in context: ChatContext) -> (line: String?, matches: [String]) {
        let endsWithSpace = line.hasSuffix(" ")
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let partial = endsWithSpace ? "" : (words.last ?? "")
        let head = String(line.dropLast(partial.count))
        let candidates: [String]
        if line.hasPrefix("/") && words.count <= 1 && !endsWithSpace {
            candidates = commands.map { "/" + $0.name }
        } else if let command = words.first, command.hasPrefix("/") {
            switch command {
            case "/open": candidates = context.conversations.map(\.title)
            case "/dm", "/group", "/follow", "/users", "/add": candidates = context.users.filter { $0 != context.me }
            case "/remove": candidates = context.users
            case "/members", "/leave": candidates = context.conversations.map(\.id)
            default: candidates = []
            }
        } else {
            // In a message: `@` and an id is a mention of a participant; a bare word, any known person's id.
            candidates = MentionCompletion.candidates(for: partial, me: context.me, participants: context.participants, users: context.users)
        }
        let matches = Array(Set(candidates.filter { $0.lowercased().hasPrefix(partial.lowercased()) })).sorted()
        guard !matches.isEmpty else { return (nil, []) }
        if matches.count == 1 { return (head + matches[0] + " ", matches) }
        let common = matches.dropFirst().reduce(matches[0]) { prefix, match in String(zip(prefix, match).prefix { $0.0 == $0.1 }.map(\.0)) }
        return (common.count > partial.count ? head + common : nil, matches)
    }
}
