/// The `/help` screen, sans-IO: the keys, then every command of ``ChatInput/commands`` (the table the input runs
/// commands through, so nothing that works is missing), laid out for any width with nothing cut off, and shown a
/// page at a time when it is taller than the screen.
public enum HelpScreen {
    /// The keys, each a unit that is never split over two rows.
    public static let keys = [
        "Enter open/send", "↑↓ select or history", "PgUp/PgDn scroll", "Home/End oldest/newest", "Alt-U first unread",
        "Alt-A next active", "Alt-1…9 open", "Tab complete, @ mention", "Esc back (twice: clear)", "Alt-Enter new line",
        "^O/^X open/dismiss a toast", "^B bell", "^L redraw", "^Z suspend", "^C quit",
    ]

    /// Every row of the help at `width` columns.
    public static func lines(width: Int) -> [String] {
        let width = max(20, width)
        var lines = TextWrap.lines("Keys (this help: ↑↓ PgUp/PgDn scroll, Esc closes):", first: width, rest: width)
        lines += pack(keys, width: width - 2).map { "  " + $0 }
        lines += TextWrap.lines("Commands start with / (other text is sent; // sends a leading /):", first: width, rest: width)
        let column = min(width / 2, ChatInput.commands.map { DisplayWidth.of($0.usage) }.max() ?? 0)
        for command in ChatInput.commands {
            let usage = TextWrap.lines(command.usage, first: width - 2, rest: width - 4)
            let aliases = command.aliases.isEmpty ? "" : " (also " + command.aliases.map { "/" + $0 }.joined(separator: " ") + ")"
            let summary = command.summary + aliases
            let indent = String(repeating: " ", count: 2 + column + 2)
            if usage.count == 1, DisplayWidth.of(usage[0]) <= column {
                let text = TextWrap.lines(summary, first: width - indent.count, rest: width - indent.count)
                lines.append("  " + DisplayWidth.pad(usage[0], to: column) + "  " + text[0])
                lines += text.dropFirst().map { indent + $0 }
            } else {
                lines += usage.enumerated().map { ($0.offset == 0 ? "  " : "    ") + $0.element }
                lines += TextWrap.lines(summary, first: width - indent.count, rest: width - indent.count).map { indent + $0 }
            }
        }
        return lines
    }

    /// The rows on screen with the help scrolled to `top` in an area `height` rows high: a row says where more is
    /// (it takes the place of a help row, which the next page shows). Returns the rows and the `top` actually used
    /// (kept within the help).
    public static func page(_ lines: [String], top: Int, height: Int) -> (rows: [String], top: Int) {
        let height = max(1, height)
        guard lines.count > height else { return (lines, 0) }
        // The last page starts where the final rows exactly fill the area under the "more above" row.
        let lastTop = lines.count - (height - 1)
        let top = min(max(0, top), lastTop)
        var rows: [String] = []
        if top > 0 { rows.append("  ↑ more above: PgUp/↑") }
        let room = height - rows.count - (top < lastTop ? 1 : 0)
        rows += lines[top..<min(lines.count, top + max(0, room))]
        if top < lastTop { rows.append("  ↓ more below: PgDn/↓ · Esc closes") }
        return (rows, top)
    }

    /// `items` joined by ` · ` into rows of at most `width` columns, never splitting an item (one longer than a row
    /// is wrapped on its own).
    static func pack(_ items: [String], width: Int) -> [String] {
        var rows: [String] = []
        var row = ""
        for item in items {
            let joined = row.isEmpty ? item : row + " · " + item
            if DisplayWidth.of(joined) <= width {
                row = joined
                continue
            }
            if !row.isEmpty { rows.append(row) }
            let wrapped = TextWrap.lines(item, first: width, rest: width)
            rows += wrapped.dropLast()
            row = wrapped.last ?? ""
        }
        if !row.isEmpty { rows.append(row) }
        return rows
    }
}
