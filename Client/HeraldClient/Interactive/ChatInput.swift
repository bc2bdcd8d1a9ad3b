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

    public init(
        me: String, scene: Scene, conversations: [(id: String, title: String)], users: [String], newestFromOthers: String?, newestMine: String? = nil
    ) {
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
    /// One command of the help screen.
    public struct Command: Sendable {
        public var name: String
        public var usage: String
        public var summary: String
        /// Listed on the help screen (the others have a key, or are mentioned with another command).
        public var listed = true
    }

    /// The chat commands (Tab completes their names), in the order `/help` lists them.
    public static let commands: [Command] = [
        Command(name: "dm", usage: "/dm <user>", summary: "talk to someone"),
        Command(name: "group", usage: "/group \"<title>\" <user> <user>…", summary: "start a group"),
        Command(name: "open", usage: "/open <number | name>", summary: "open a conversation of the list"),
        Command(name: "users", usage: "/users [<prefix>]", summary: "people you can message"),
        // One help line for both: the help screen has to fit an 80x24 terminal.
        Command(name: "members", usage: "/members · /search <words>", summary: "who is here · find its messages (n/N)"),
        Command(name: "image", usage: "/image <url>", summary: "send an image"),
        Command(name: "react", usage: "/react [<message>] <emoji>", summary: "react (to the newest message)"),
        // One help line for both: the help screen has to fit an 80x24 terminal.
        Command(name: "edit", usage: "/edit <text> · /unsend", summary: "change or take back your last message"),
        Command(name: "unsend", usage: "/unsend", summary: "", listed: false),
        Command(name: "search", usage: "/search <words>", summary: "", listed: false),
        Command(name: "follow", usage: "/follow <user>", summary: "follow someone", listed: false),
        Command(name: "leave", usage: "/leave", summary: "leave this group (asks first)"),
        Command(name: "sign-out", usage: "/sign-out [<device>]", summary: "sign devices out (asks first)", listed: false),
        Command(name: "read-all", usage: "/read-all", summary: "mark every notification read", listed: false),
        Command(name: "mute", usage: "/mute [<minutes>] · /unmute", summary: "no alerts from this conversation"),
        Command(name: "unmute", usage: "/unmute", summary: "", listed: false),
        Command(name: "quiet", usage: "/quiet on|off", summary: "quiet hours: pushes silent, toasts wait"),
        Command(name: "unread", usage: "/unread", summary: "mark this conversation unread"),
        Command(name: "background", usage: "/background", summary: "as if the app went away (/foreground)", listed: false),
        Command(name: "foreground", usage: "/foreground", summary: "", listed: false),
        Command(name: "help", usage: "/help", summary: "", listed: false),
        Command(name: "back", usage: "/back", summary: "", listed: false),
        Command(name: "bell", usage: "/bell", summary: "", listed: false),
        Command(name: "bottom", usage: "/bottom", summary: "", listed: false),
        Command(name: "quit", usage: "/quit", summary: "", listed: false),
    ]

    /// The help screen's lines (fits the scene area of an 80x24 terminal).
    public static let helpLines: [String] = {
        var lines = [
            "In a conversation, type and press Enter to send. Commands start with /:",
        ]
        let listed = commands.filter(\.listed)
        let width = listed.map { DisplayWidth.of($0.usage) }.max() ?? 0
        lines += listed.map { "  " + DisplayWidth.pad($0.usage, to: width) + "  " + $0.summary }
        lines += [
            "  Script commands take the slash too: /state, /scroll up 5, /sign-out (asks y/N)",
            "Keys: Enter open/send · ↑↓ select or history · PgUp/PgDn scroll · End newest",
            "      Esc back · Tab complete · ^O/^X open/dismiss a toast · ^B bell · ^C quit",
        ]
        return lines
    }()

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
        switch name {
        case "", "help", "?", "h": return .help
        case "back", "list": return .commands([.open(.list)])
        case "bell", "notifications": return .commands([.open(.notifications)])
        case "read-all": return .commands([.bellReadAll])
        case "bottom": return .commands([.scroll(.bottom)])
        case "quit", "exit", "q": return .commands([.quit])
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
                guard let target = context.newestFromOthers else { return .notice("nothing to react to here: /react <message> <emoji>") }
                return .commands([.react(message: target, emoji: arguments[0])])
            case 2: return .commands([.react(message: arguments[0], emoji: arguments[1])])
            default: return .notice("usage: /react [<message>] <emoji>")
            }
        case "edit":
            guard !rest.isEmpty else { return .notice("usage: /edit <new text> (changes your last message)") }
            guard let mine = context.newestMine else { return .notice("no message of yours here to edit") }
            return .commands([.edit(message: mine, text: rest)])
        case "unsend":
            guard arguments.isEmpty else { return .notice("usage: /unsend (takes back your last message)") }
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
            case .failure(let error)? where error.code == "unknown_command":
                return .notice("unknown command /\(name): /help lists them")
            case .failure(let error)?: return .notice(error.message)
            case nil: return .nothing
            }
        }
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
            case "/dm", "/group", "/follow", "/users": candidates = context.users.filter { $0 != context.me }
            case "/members", "/leave": candidates = context.conversations.map(\.id)
            default: candidates = []
            }
        } else {
            // In a message: @-style names of people.
            candidates = context.users.filter { $0 != context.me }
        }
        let matches = Array(Set(candidates.filter { $0.lowercased().hasPrefix(partial.lowercased()) })).sorted()
        guard !matches.isEmpty else { return (nil, []) }
        if matches.count == 1 { return (head + matches[0] + " ", matches) }
        let common = matches.dropFirst().reduce(matches[0]) { prefix, match in String(zip(prefix, match).prefix { $0.0 == $0.1 }.map(\.0)) }
        return (common.count > partial.count ? head + common : nil, matches)
    }
}
