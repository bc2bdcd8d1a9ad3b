/// How many terminal columns text takes: East Asian wide characters and emoji take two, combining marks and
/// controls none. Grapheme clusters are the unit, so a flag or a family emoji is one two-column character.
public enum DisplayWidth {
    /// Columns of one grapheme cluster.
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        // A style mark is drawn as an SGR sequence, which takes no column.
        if TerminalStyle.isMark(first) { return 0 }
        if first.value < 0x20 || (0x7F..<0xA0).contains(first.value) { return 0 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark: return 0
        case .format:
            // The soft hyphen and the prepended concatenation marks (U+0600 ARABIC NUMBER SIGN, …) are drawn a column
            // wide, and such marks make one cluster with what follows them, which is drawn too; other format
            // characters are not drawn. Counting fewer columns than are drawn would let text run past its cells.
            guard isDrawnFormat(first.value) else { return 0 }
            // A peer may send thousands of marks in one cluster: counted in one pass, and the rest (a cluster of its
            // own, which starts with no such mark) measured once, so the work is linear and the depth one call.
            var marks = 0
            var rest = scalars.startIndex
            while rest != scalars.endIndex, scalars[rest].properties.generalCategory == .format, isDrawnFormat(scalars[rest].value) {
                marks += 1
                rest = scalars.index(after: rest)
            }
            return rest == scalars.endIndex ? marks : marks + of(String(String.UnicodeScalarView(scalars[rest...])))
        default: break
        }
        if first.properties.isEmojiPresentation || isWide(first.value) { return 2 }
        // A text-style symbol made emoji by VS16, or a keycap / regional-indicator sequence.
        if scalars.count > 1, first.properties.isEmoji, scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x20E3 }) { return 2 }
        return 1
    }

    /// Columns of a string.
    public static func of<S: StringProtocol>(_ text: S) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// `text` cut to at most `width` columns, with "…" where it was cut.
    public static func truncate<S: StringProtocol>(_ text: S, to width: Int) -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return String(text) }
        var result = ""
        var used = 0
        for character in text {
            let columns = of(character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }

    /// `text` padded with spaces (or cut) to exactly `width` columns.
    public static func pad<S: StringProtocol>(_ text: S, to width: Int) -> String {
        let cut = truncate(text, to: width)
        return cut + String(repeating: " ", count: max(0, width - of(cut)))
    }

    /// Format characters a terminal draws a column wide (as `wcwidth` counts them).
    private static func isDrawnFormat(_ value: UInt32) -> Bool {
        switch value {
        case 0x00AD, 0x0600...0x0605, 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD, 0x110CD: true
        default: false
        }
    }

    /// Unicode's East Asian Wide and Fullwidth blocks (Hangul, CJK, Yijing hexagrams, vertical and small forms,
    /// Tangut, Kana supplements, fullwidth forms, …), as terminals draw them.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x9FFF, 0xA000...0xA4CF,
             0xA960...0xA97C, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6B, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x16FF0...0x16FF1, 0x17000...0x18CFF, 0x18D00...0x18D08, 0x1AFF0...0x1B2FF,
             0x1F200...0x1F265, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
