import HeraldProtocol
import HeraldRules

/// `/search <words>` in a thread, sans-IO: holds the server's hits (newest first) and which one is shown, and turns
/// the keys of a search into typed commands: `n` or ↑ goes to the next older hit, `N` or ↓ to the next newer one,
/// Enter scrolls to the current hit again, Esc ends the search. Each move is a `jump`, which scrolls the thread so the
/// hit is on screen (loading older history as needed); going past the oldest hit loaded asks the server for the next
/// page of hits.
struct SearchNavigator {
    private(set) var conversation: String?
    private var text = ""
    private var hits: [MessageInfo] = []
    /// The hit shown, an index into `hits`; nil before the first answer.
    private var index: Int?
    /// The server has older hits than the last one loaded.
    private var more = false
    /// A page of hits was asked for and not answered yet.
    private var loading = false

    /// Whether a search is going on (its keys are taken while the composer is empty).
    var isActive: Bool { conversation != nil }

    /// Starts a search of `conversation` for `text` (the `search` command goes out beside this).
    mutating func begin(conversation: String, text: String) {
        self = SearchNavigator()
        self.conversation = conversation
        self.text = text
        loading = true
    }

    mutating func end() { self = SearchNavigator() }

    /// A page of hits arrived: the first page shows its newest hit; a later one (asked for by going past the oldest)
    /// shows its first.
    mutating func answered(hits page: [MessageInfo], more: Bool) -> [ClientCommand] {
        guard isActive, loading else { return [] }
        loading = false
        self.more = more
        let first = hits.count
        hits += page.filter { hit in !hits.contains { $0.id == hit.id } }
        guard first < hits.count else { return [] }
        index = first
        return [.jump(message: hits[first].id)]
    }

    /// The search's command was refused: nothing more to show.
    mutating func failed() { loading = false }

    /// The answer to a `search` or `jump` while a search goes on: what the notice line says and what runs next (the
    /// jump to a page's first hit). Nil for every other answer, which the front end shows as usual.
    mutating func take(_ answer: CommandAnswer) -> (notice: String, commands: [ClientCommand])? {
        guard isActive, answer.name == "search" || answer.name == "jump" else { return nil }
        switch answer.outcome {
        case .ok(let details) where answer.name == "search":
            let commands = answered(hits: details.hits ?? [], more: details.more ?? false)
            return (status, commands)
        case .error(_, let message):
            failed()
            return ("✗ \(answer.name): \(message)", [])
        default:
            return (status, [])
        }
    }

    /// What a key does during a search; nil when the key is not the search's (it then does what it always does).
    mutating func commands(for key: Key) -> [ClientCommand]? {
        guard let conversation, !loading else { return key == .escape ? endAndReturnNothing() : nil }
        switch key {
        case .text("n"), .up: return older(in: conversation)
        case .text("N"), .down: return newer()
        case .enter: return index.map { [.jump(message: hits[$0].id)] } ?? []
        case .escape: return endAndReturnNothing()
        default: return nil
        }
    }

    private mutating func endAndReturnNothing() -> [ClientCommand] {
        end()
        return []
    }

    private mutating func older(in conversation: String) -> [ClientCommand] {
        guard let index else { return [] }
        if index + 1 < hits.count {
            self.index = index + 1
            return [.jump(message: hits[index + 1].id)]
        }
        guard more, let last = hits.last else { return [] }
        loading = true
        return [.search(conversation: conversation, text: text, before: last.id)]
    }

    private mutating func newer() -> [ClientCommand] {
        guard let index, index > 0 else { return [] }
        self.index = index - 1
        return [.jump(message: hits[index - 1].id)]
    }

    /// The notice line of a search: which hit of how many, the keys, then who wrote it and its start (what a narrow
    /// terminal cuts first).
    var status: String {
        let query = "search \u{201C}\(TerminalText.line(String(text.prefix(30))))\u{201D}"
        if loading { return "\(query): searching…" }
        guard let index, index < hits.count else { return "\(query): no message found · Esc ends the search" }
        let hit = hits[index]
        let count = "\(index + 1)/\(hits.count)\(more ? "+" : "")"
        let position = index + 1 == hits.count && !more ? " (oldest)" : (index == 0 ? " (newest)" : "")
        let words = TerminalText.line(String((hit.text ?? "").prefix(60)))
        return "\(query) \(count)\(position) · n/N older/newer · Esc ends · \(hit.senderName): \(words)"
    }
}
