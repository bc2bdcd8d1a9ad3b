/// Word wrapping by display columns: words move to the next line whole, a word longer than a line is broken,
/// and line breaks in the text are kept.
public enum TextWrap {
    /// The lines of `text`; the first is at most `first` columns wide, the others at most `rest`.
    public static func lines(_ text: String, first: Int, rest: Int) -> [String] {
        let first = max(1, first)
        let rest = max(1, rest)
        var lines: [String] = []
        var line = ""
        var used = 0
        var limit: Int { lines.isEmpty ? first : rest }
        func breakLine() {
            lines.append(line)
            line = ""
            used = 0
        }
        for (index, paragraph) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { breakLine() }
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                let width = DisplayWidth.of(word)
                let gap = used == 0 ? 0 : 1
                if used + gap + width <= limit {
                    if gap == 1 { line += " " }
                    line += word
                    used += gap + width
                } else if width <= rest {
                    breakLine()
                    line += word
                    used = width
                } else {
                    // Longer than any line: fill this one, then break the word by characters.
                    if used > 0 {
                        line += " "
                        used += 1
                    }
                    for character in word {
                        let columns = DisplayWidth.of(character)
                        if used + columns > limit && used > 0 { breakLine() }
                        line.append(character)
                        used += columns
                    }
                }
            }
        }
        lines.append(line)
        return lines
    }
}
