import Foundation
import HeraldTestSupport
import Testing

/// The README's walkthrough ("Chat in a few minutes" and "What it looks like"), read from README.md and performed as
/// written on a fresh server with the demo's users: the doc and this test cannot drift apart.
@Suite("README walkthrough reproduces as written (tmux, 80x24)", .serialized)
struct ReadmeWalkthroughTests {
    @Test("every screen README.md's walkthrough shows is what the real client draws after the steps it gives (times, toast countdowns and date lines masked)")
    func walkthroughScreens() throws {
        let walkthrough = try ReadmeWalkthrough.read()
        let server = try TestServer()
        var names = try ReadmeWalkthrough.demoUsers()
        var terminals: [String: TmuxSession] = [:]
        defer { for terminal in terminals.values { try? terminal.key("C-c") } }

        func open(_ user: String) throws {
            // `.dev/chat` mints a token without --name for a user the demo does not make: its name is its id.
            let token = try server.token(user, name: names[user] ?? user)
            names[user] = names[user] ?? user
            // A longer toast than the default 3 s only widens the window in which a loaded machine captures it.
            let command = "NO_COLOR=1 \(HeraldBinaries.client) --server \(server.url) --token \(token) --toast-duration-seconds 10; sleep 30"
            let terminal = try TmuxSession(command: command, columns: 80, rows: 24)
            try terminal.waitScreen("\(user) online") { $0.contains("● online") }
            terminals[user] = terminal
        }

        var screensChecked = 0
        for part in walkthrough {
            switch part {
            case .chat(let user):
                try open(user)
            case .type(let user, let text):
                let terminal = try #require(terminals[user], "README types as \(user) before `bash .dev/chat \(user)`")
                try terminal.type(text)
                try Self.waitTaken(text, on: terminal)
            case .key(let user, let key):
                let terminal = try #require(terminals[user], "README presses a key as \(user) before `bash .dev/chat \(user)`")
                try terminal.key(try #require(ReadmeWalkthrough.tmuxKeys[key], "README names a key this test does not know: \(key)"))
            case .screen(let user, let expected):
                let terminal = try #require(terminals[user], "README shows \(user)'s screen before `bash .dev/chat \(user)`")
                let want = ReadmeWalkthrough.masked(expected)
                var last = ""
                do {
                    try terminal.waitSettledScreen("README screen \(screensChecked + 1)", timeout: .seconds(20)) { screen in
                        last = ReadmeWalkthrough.masked(screen)
                        return last == want
                    }
                } catch {
                    Issue.record("README screen \(screensChecked + 1) differs from the client's.\nREADME:\n\(want)\nclient:\n\(last)")
                    return
                }
                screensChecked += 1
            }
        }
        #expect(screensChecked >= 3, "the walkthrough shows the thread, the list and the bell")
    }

    /// Waits until a typed line left the input line: a command ran, or a message was sent and taken by the server
    /// (shown in the thread, no longer `(sending…)`), so the next step, maybe in another terminal, comes after it.
    static func waitTaken(_ text: String, on terminal: TmuxSession) throws {
        let start = String(text.prefix(12))
        try terminal.waitSettledScreen("'\(start)…' taken") { screen in
            let rows = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let input = rows.last(where: { $0.hasPrefix(">") }), !input.contains(start) else { return false }
            if text.hasPrefix("/") { return true }
            return screen.contains(start) && !screen.contains("sending…")
        }
    }
}

/// README.md's walkthrough as steps: the `bash .dev/chat <user>` lines of its sh blocks, the `user> text` (type, then
/// Enter) and `user: Key` lines of its step blocks, and every other text block as a screen of the first user's
/// terminal (alice's, as the README says).
enum ReadmeWalkthrough {
    enum Part {
        case chat(String)
        case type(String, String)
        case key(String, String)
        case screen(String, String)
    }

    /// The keys the README may name, as tmux names them.
    static let tmuxKeys = ["Esc": "Escape", "Enter": "Enter", "Ctrl-B": "C-b", "Ctrl-O": "C-o", "Ctrl-X": "C-x", "Up": "Up", "Down": "Down"]

    static func repositoryFile(_ name: String, filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(name)
    }

    /// The users `.dev/run` makes (`for user in alice:Alice bob:Bob`), id to display name.
    static func demoUsers() throws -> [String: String] {
        let script = try String(contentsOf: repositoryFile(".dev/run"), encoding: .utf8)
        guard let line = script.split(separator: "\n").first(where: { $0.hasPrefix("for user in ") }) else {
            throw ProcessHarnessError(".dev/run has no `for user in id:Name …` line")
        }
        let pairs = line.dropFirst("for user in ".count).prefix { $0 != ";" }.split(separator: " ")
        return Dictionary(uniqueKeysWithValues: pairs.compactMap { pair -> (String, String)? in
            let parts = pair.split(separator: ":", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        })
    }

    /// The walkthrough's parts, in the README's order, from `## Chat in` to the end of `### What it looks like`.
    static func read() throws -> [Part] {
        let text = try String(contentsOf: repositoryFile("README.md"), encoding: .utf8)
        guard let start = text.range(of: "\n## Chat in") else { throw ProcessHarnessError("README.md has no ## Chat in … section") }
        guard let looks = text.range(of: "\n### What it looks like\n", range: start.upperBound..<text.endIndex) else {
            throw ProcessHarnessError("README.md has no ### What it looks like section")
        }
        let rest = text[looks.upperBound...]
        let end = rest.range(of: "\n### ")?.lowerBound ?? rest.endIndex
        let lines = text[start.upperBound..<end].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)

        var parts: [Part] = []
        var fence: (info: String, lines: [String])?
        var screenOwner: String?
        for line in lines {
            if line.hasPrefix("```") {
                if let open = fence {
                    parts += try blockParts(info: open.info, lines: open.lines, screenOwner: &screenOwner, sofar: parts)
                    fence = nil
                } else {
                    fence = (String(line.dropFirst(3)), [])
                }
            } else if fence != nil {
                fence?.lines.append(line)
            }
        }
        return parts
    }

    private static func blockParts(info: String, lines: [String], screenOwner: inout String?, sofar: [Part]) throws -> [Part] {
        if info == "sh" {
            return lines.compactMap { line in
                let command = line.split(separator: "#", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                guard command.hasPrefix("bash .dev/chat ") else { return nil }
                let user = String(command.dropFirst("bash .dev/chat ".count))
                if screenOwner == nil { screenOwner = user }
                return .chat(user)
            }
        }
        guard info == "text" else { return [] }
        let steps = lines.filter { !$0.isEmpty }.map { line -> Part? in
            guard let mark = line.firstIndex(where: { $0 == ">" || $0 == ":" }) else { return nil }
            let user = String(line[..<mark])
            guard !user.isEmpty, user.allSatisfy({ $0.isLowercase || $0.isNumber }), line[line.index(after: mark)...].hasPrefix(" ") else { return nil }
            let rest = String(line[line.index(mark, offsetBy: 2)...])
            return line[mark] == ">" ? .type(user, rest) : .key(user, rest)
        }
        if !steps.isEmpty, steps.allSatisfy({ $0 != nil }) { return steps.compactMap { $0 } }
        guard let owner = screenOwner else { throw ProcessHarnessError("README shows a screen before any `bash .dev/chat <user>`") }
        return [.screen(owner, lines.joined(separator: "\n"))]
    }

    /// A screen as compared: trailing spaces and trailing empty rows dropped, times (hh:mm), toast countdowns ([Ns])
    /// and date separator lines masked, since they differ on every run.
    static func masked(_ screen: String) -> String {
        var rows = screen.split(separator: "\n", omittingEmptySubsequences: false).map { row -> String in
            var text = String(row)
            while text.last == " " { text.removeLast() }
            text = text.replacingOccurrences(of: #"\b\d{2}:\d{2}\b"#, with: "hh:mm", options: .regularExpression)
            text = text.replacingOccurrences(of: #"\[\d+s\]"#, with: "[Ns]", options: .regularExpression)
            text = text.replacingOccurrences(of: #"^── \w+ \d{1,2} \w+( \d{4})? ──$"#, with: "── date ──", options: .regularExpression)
            return text
        }
        while rows.last == "" { rows.removeLast() }
        return rows.joined(separator: "\n")
    }
}
