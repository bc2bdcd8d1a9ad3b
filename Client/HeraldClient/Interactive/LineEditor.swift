/// The input line: text edited by grapheme cluster (Backspace removes a whole emoji or accented letter, never half
/// of one), a cursor, a history of submitted lines, and a view that scrolls sideways to keep the cursor on screen.
public struct LineEditor: Sendable {
    /// The line as grapheme clusters.
    public private(set) var characters: [Character] = []
    /// Where the cursor is, as an index into `characters` (0...count).
    public private(set) var cursor = 0
    private var history: [String] = []
    /// While browsing history: the entry shown, and the line that was being typed before.
    private var browsing: (index: Int, draft: String)?
    /// Lines kept in history.
    public static let historyLimit = 200

    public init() {}

    public var text: String { String(characters) }
    public var isEmpty: Bool { characters.isEmpty }

    /// Types `typed` at the cursor. The line is re-segmented, so a combining mark or a joiner typed after a character
    /// joins it.
    public mutating func insert(_ typed: String) {
        let before = String(characters[..<cursor]) + typed
        let after = String(characters[cursor...])
        characters = Array(before + after)
        cursor = min(characters.count, before.count)
    }

    public mutating func backspace() {
        guard cursor > 0 else { return }
        characters.remove(at: cursor - 1)
        cursor -= 1
    }

    public mutating func deleteForward() {
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
    }

    public mutating func moveLeft() { cursor = max(0, cursor - 1) }
    public mutating func moveRight() { cursor = min(characters.count, cursor + 1) }
    public mutating func moveHome() { cursor = 0 }
    public mutating func moveEnd() { cursor = characters.count }

    /// Ctrl-W: deletes the word before the cursor (and the spaces after it).
    public mutating func deleteWordBackward() {
        var start = cursor
        while start > 0 && characters[start - 1] == " " { start -= 1 }
        while start > 0 && characters[start - 1] != " " { start -= 1 }
        characters.removeSubrange(start..<cursor)
        cursor = start
    }

    /// Ctrl-U: deletes everything before the cursor.
    public mutating func deleteToStart() {
        characters.removeSubrange(0..<cursor)
        cursor = 0
    }

    /// Ctrl-K: deletes everything after the cursor.
    public mutating func deleteToEnd() {
        characters.removeSubrange(cursor...)
    }

    /// Replaces the line (Tab completion), cursor at the end.
    public mutating func replace(with text: String) {
        characters = Array(text)
        cursor = characters.count
        browsing = nil
    }

    /// Enter: returns the line, remembers it in history and clears the input.
    public mutating func submit() -> String {
        let line = text
        if !line.isEmpty, history.last != line {
            history.append(line)
            if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
        }
        characters = []
        cursor = 0
        browsing = nil
        return line
    }

    /// Up: the previous history entry (the line being typed is kept and comes back at the end).
    public mutating func historyBack() {
        guard !history.isEmpty else { return }
        let index = (browsing?.index ?? history.count) - 1
        guard index >= 0 else { return }
        browsing = (index, browsing?.draft ?? text)
        characters = Array(history[index])
        cursor = characters.count
    }

    /// Down: the next history entry, then the draft again.
    public mutating func historyForward() {
        guard let current = browsing else { return }
        if current.index + 1 < history.count {
            browsing = (current.index + 1, current.draft)
            characters = Array(history[current.index + 1])
        } else {
            browsing = nil
            characters = Array(current.draft)
        }
        cursor = characters.count
    }

    /// How a line break inside the text (Alt-Enter) is shown on the one-row input line.
    public static let lineBreakMark: Character = "↵"

    /// What fits in `width` columns, scrolled so the cursor is visible, and the cursor's column in it. A line break
    /// shows as ``lineBreakMark``.
    public func view(width: Int) -> (text: String, cursorColumn: Int) {
        let width = max(2, width)
        let characters = characters.map { $0 == "\n" ? Self.lineBreakMark : $0 }
        var start = 0
        var columnsBeforeCursor = DisplayWidth.of(String(characters[..<cursor]))
        // Leave one column for the cursor at the end; scroll by whole characters.
        while columnsBeforeCursor > width - 1 && start < cursor {
            columnsBeforeCursor -= DisplayWidth.of(characters[start])
            start += 1
        }
        var shown = ""
        var used = 0
        for character in characters[start...] {
            let columns = DisplayWidth.of(character)
            if used + columns > width { break }
            shown.append(character)
            used += columns
        }
        return (shown, columnsBeforeCursor)
    }
}
