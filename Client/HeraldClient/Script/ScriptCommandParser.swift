import HeraldRules

/// Why a script line is not a command: answered as `{"type":"error","cmd":…,"code":…}`.
public struct ScriptCommandError: Error, Equatable, Sendable {
    /// The first word of the line (the `cmd` field of the error answer).
    public var command: String
    /// `unknown_command` or `bad_arguments`.
    public var code: String
    /// One line for people.
    public var message: String
}

/// Parses script lines. Words are separated by spaces; a word may be double-quoted (`"Team A"`, with `\"`
/// and `\\` escapes). Where the contract says "the rest of the line" (send, toast show) the text is taken verbatim.
public enum ScriptCommandParser {
    /// Parses one line (without its newline). Blank lines and lines starting with `#` give nil.
    public static func parse(_ line: String) -> Result<ClientCommand, ScriptCommandError>? {
        let trimmed = line.trimmingSpaces
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return nil }
        let words: [Word]
        do {
            words = try tokenize(trimmed)
        } catch {
            return .failure(error)
        }
        guard let first = words.first else { return nil }
        do {
            return .success(try command(first.text, Array(words.dropFirst()), line: trimmed))
        } catch {
            return .failure(error)
        }
    }

    /// A word and where the line continues after it (for "rest of the line" arguments).
    struct Word {
        var text: String
        var end: String.Index
    }

    static func tokenize(_ line: String) throws(ScriptCommandError) -> [Word] {
        var words: [Word] = []
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            if character == " " || character == "\t" {
                index = line.index(after: index)
                continue
            }
            var text = ""
            if character == "\"" {
                index = line.index(after: index)
                var closed = false
                while index < line.endIndex {
                    let next = line[index]
                    index = line.index(after: index)
                    if next == "\"" {
                        closed = true
                        break
                    }
                    if next == "\\", index < line.endIndex {
                        text.append(line[index])
                        index = line.index(after: index)
                    } else {
                        text.append(next)
                    }
                }
                if !closed {
                    let name = words.first?.text ?? "?"
                    throw ScriptCommandError(command: name, code: "bad_arguments", message: "unterminated quote")
                }
            } else {
                while index < line.endIndex, line[index] != " ", line[index] != "\t" {
                    text.append(line[index])
                    index = line.index(after: index)
                }
            }
            words.append(Word(text: text, end: index))
        }
        return words
    }

    /// The commands that take no arguments.
    private static let withoutArguments: [String: ClientCommand] = [
        "state": .state, "background": .background, "foreground": .foreground, "lock": .lock, "unlock": .unlock, "quit": .quit,
    ]

    /// The commands that take exactly one argument: its name in the usage line, and the command it makes.
    private static let withOneArgument: [String: (usage: String, make: @Sendable (String) -> ClientCommand)] = [
        "dm": ("<user>", { .dm(user: $0) }),
        "unmute": ("<conversation>", { .unmute(conversation: $0) }),
        "mark-unread": ("<conversation>", { .markUnread(conversation: $0) }),
        "follow": ("<user>", { .follow(user: $0) }),
        "leave": ("<conversation>", { .leave(conversation: $0) }),
        "unsend": ("<message>", { .unsend(message: $0) }),
        "jump": ("<message>", { .jump(message: $0) }),
        "open-url": ("<url>", { .openURL($0) }),
    ]

    private static func command(_ name: String, _ args: [Word], line: String) throws(ScriptCommandError) -> ClientCommand {
        func bad(_ usage: String) -> ScriptCommandError {
            ScriptCommandError(command: name, code: "bad_arguments", message: "usage: \(usage)")
        }
        /// The verbatim rest of the line after argument `index - 1`.
        func rest(after index: Int) -> String {
            guard index > 0, index <= args.count else { return "" }
            return String(line[args[index - 1].end...]).trimmingSpaces
        }
        let words = args.map(\.text)
        /// `flag <value>` at argument `index`, when it is there, and the verbatim text after the arguments it leaves:
        /// an option goes before the free text (`toast show … --key k text`, `search c1 --before m9 words`). Nil when
        /// the option is given without a value or with no text after it.
        func optionThenText(_ flag: String, at index: Int) -> (value: String?, text: String)? {
            guard index < words.count, words[index] == flag else { return (nil, rest(after: index)) }
            guard words.count >= index + 3 else { return nil }
            return (words[index + 1], rest(after: index + 2))
        }
        if let command = withoutArguments[name] {
            guard words.isEmpty else { throw bad(name) }
            return command
        }
        if let (usage, make) = withOneArgument[name] {
            guard words.count == 1 else { throw bad("\(name) \(usage)") }
            return make(words[0])
        }
        switch name {
        case "group":
            guard words.count >= 2 else { throw bad("group <title> <user> [<user>…]") }
            return .group(title: words[0], members: Array(words.dropFirst()))
        case "send":
            let text = rest(after: 1)
            guard words.count >= 2, !text.isEmpty else { throw bad("send <conversation> <text…>") }
            return .send(conversation: words[0], text: text)
        case "rename":
            let title = rest(after: 1)
            guard words.count >= 2, !title.isEmpty else { throw bad("rename <conversation> <title…>") }
            return .renameGroup(conversation: words[0], title: title)
        case "add-member":
            guard words.count == 2 else { throw bad("add-member <conversation> <user>") }
            return .addMember(conversation: words[0], user: words[1])
        case "remove-member":
            guard words.count == 2 else { throw bad("remove-member <conversation> <user>") }
            return .removeMember(conversation: words[0], user: words[1])
        case "send-image":
            guard words.count == 2 else { throw bad("send-image <conversation> <url>") }
            return .sendImage(conversation: words[0], url: words[1])
        case "open":
            switch (words.first, words.count) {
            case ("list", 1): return .open(.list)
            case ("notifications", 1): return .open(.notifications)
            case ("thread", 2): return .open(.thread(words[1]))
            case ("tab", 2): return .open(.tab(words[1]))
            default: throw bad("open list | open thread <conversation> | open tab <name> | open notifications")
            }
        case "scroll":
            switch (words.first, words.count) {
            case ("bottom", 1): return .scroll(.bottom)
            case ("top", 1): return .scroll(.top)
            case ("unread", 1): return .scroll(.firstUnread)
            case ("up", 2):
                guard let n = Int(words[1]), n >= 0 else { throw bad("scroll up <n>") }
                return .scroll(.up(n))
            case ("down", 2):
                guard let n = Int(words[1]), n >= 0 else { throw bad("scroll down <n>") }
                return .scroll(.down(n))
            default: throw bad("scroll up <n> | scroll down <n> | scroll bottom | scroll top | scroll unread")
            }
        case "toast":
            switch words.first {
            case "tap" where words.count == 1: return .toastTap
            case "swipe" where words.count == 1: return .toastSwipe
            case "action" where words.count == 1: return .toastAction
            case "show":
                let usage = "toast show <success|error|info|warning> <normal|elevated|critical> [--key <k>] <text…>"
                guard words.count >= 4, let kind = ToastKind(name: words[1]), let priority = ToastPriority(name: words[2]) else {
                    throw bad(usage)
                }
                guard let (key, text) = optionThenText("--key", at: 3), !text.isEmpty else { throw bad(usage) }
                return .toastShow(kind: kind, priority: priority, key: key, text: text)
            default:
                throw bad("toast tap | toast swipe | toast action | toast show …")
            }
        case "push":
            guard words.first == "tap", words.count <= 2 else { throw bad("push tap [<index>]") }
            if words.count == 2 {
                guard let index = Int(words[1]), index >= 0 else { throw bad("push tap [<index>]") }
                return .pushTap(index: index)
            }
            return .pushTap(index: nil)
        case "mute":
            // A mute ends within a year at most when it has an end; "forever" is the form without minutes.
            guard words.count == 1 || (words.count == 2 && Int(words[1]).map({ (1...525_600).contains($0) }) == true) else {
                throw bad("mute <conversation> [<minutes 1-525600>]")
            }
            return .mute(conversation: words[0], minutes: words.count == 2 ? Int(words[1]) : nil)
        case "quiet":
            guard words.count == 1, words[0] == "on" || words[0] == "off" else { throw bad("quiet on|off") }
            return .quiet(on: words[0] == "on")
        case "search":
            // `--before` takes the last hit of the previous page, as `toast show` takes `--key`: before the free text.
            let usage = "search <conversation> [--before <message>] <words…>"
            guard words.count >= 2, let (before, text) = optionThenText("--before", at: 1), !text.isEmpty else { throw bad(usage) }
            return .search(conversation: words[0], text: text, before: before)
        case "users":
            guard words.count <= 1 else { throw bad("users [<prefix>]") }
            return .users(prefix: words.first.flatMap { $0.isEmpty ? nil : $0 })
        case "members":
            guard words.count == 1, !words[0].isEmpty else { throw bad("members <conversation>") }
            return .members(conversation: words[0])
        case "sign-out":
            guard words.count <= 1 else { throw bad("sign-out [<device>]") }
            return .signOut(device: words.first)
        case "react":
            guard words.count == 2 else { throw bad("react <message> <emoji>") }
            return .react(message: words[0], emoji: words[1])
        case "edit":
            let text = rest(after: 1)
            guard words.count >= 2, !text.isEmpty else { throw bad("edit <message> <text…>") }
            return .edit(message: words[0], text: text)
        case "bell":
            switch (words.first, words.count) {
            case ("read", 2): return .bellRead(notification: words[1])
            case ("read-all", 1): return .bellReadAll
            default: throw bad("bell read <notification> | bell read-all")
            }
        case "typing":
            switch (words.first, words.count) {
            case ("start", 2): return .typingStart(conversation: words[1])
            case ("stop", 2): return .typingStop(conversation: words[1])
            default: throw bad("typing start <conversation> | typing stop <conversation>")
            }
        case "sleep":
            guard words.count == 1, let ms = Int(words[0]), ms >= 0 else { throw bad("sleep <ms>") }
            return .sleep(milliseconds: ms)
        default:
            throw ScriptCommandError(command: name, code: "unknown_command", message: "unknown command '\(name.prefix(64))'")
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and carriage returns.
    var trimmingSpaces: String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" || first == "\r" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" || last == "\r" { slice = slice.dropLast() }
        return String(slice)
    }
}
