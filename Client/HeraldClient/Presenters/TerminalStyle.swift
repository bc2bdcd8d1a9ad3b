/// Colour and emphasis on the terminal, without letting anyone but this code write an escape sequence.
///
/// Presenters mark what a run of a row means (a nick, a mention, an error) with style marks: Unicode noncharacters
/// (U+FDD0-U+FDEF), which the standard sets aside for a program's internal use and which no text ever needs. Rows
/// stay plain strings, so layout and width code is unchanged (``DisplayWidth`` counts a mark as no column). Text
/// someone else wrote has every noncharacter replaced before a presenter sees it (``TerminalStyle/unmarked(_:)``),
/// so only this code's marks reach ``TerminalStyle/paint(_:colour:base:)``, which turns them into SGR sequences
/// (ECMA-48 8.3.117) as the very last step, after the row was made drawable and cut to the screen's width.
public enum TerminalStyle {
    /// What a run of text means; each is drawn by its own SGR parameters.
    public enum Mark: Sendable, Equatable, CaseIterable {
        /// Back to the row's plain look.
        case plain
        /// My own name ("You"): bold, so my messages stand apart without a colour.
        case mine
        /// Times, pending sends, placeholders: text of less weight.
        case faint
        /// A message that mentions me: bold yellow (bold alone without colour).
        case mention
        /// Errors and offline: red.
        case bad
        /// Success and online: green.
        case good
        /// Warnings, waiting, connecting: yellow.
        case warning
        /// Neutral information (message toasts): cyan.
        case info
        /// An app-defined toast look: magenta.
        case custom
        /// A nick's colour (``NickColour``): index into ``nickPalette``.
        case nick(Int)

        public static var allCases: [Mark] {
            [.plain, .mine, .faint, .mention, .bad, .good, .warning, .info, .custom] + (0..<nickPalette.count).map(Mark.nick)
        }

        /// The mark's scalar in a row.
        public var scalar: Unicode.Scalar {
            let value: UInt32
            switch self {
            case .plain: value = 0xFDD0
            case .mine: value = 0xFDD1
            case .faint: value = 0xFDD2
            case .mention: value = 0xFDD3
            case .bad: value = 0xFDD4
            case .good: value = 0xFDD5
            case .warning: value = 0xFDD6
            case .info: value = 0xFDD7
            case .custom: value = 0xFDD8
            case .nick(let index): value = 0xFDE0 + UInt32(min(max(index, 0), TerminalStyle.nickPalette.count - 1))
            }
            return Unicode.Scalar(value) ?? "\u{FFFD}"
        }

        /// The mark as a string to put into a row.
        public var text: String { String(Character(scalar)) }

        /// Its SGR parameters with colour, and without (NO_COLOR keeps bold, faint and reverse: they are no colour).
        fileprivate func parameters(colour: Bool) -> String {
            switch self {
            case .plain: ""
            case .mine: "1"
            case .faint: "2"
            case .mention: colour ? "1;33" : "1"
            case .bad: colour ? "31" : ""
            case .good: colour ? "32" : ""
            case .warning: colour ? "33" : ""
            case .info: colour ? "36" : ""
            case .custom: colour ? "35" : ""
            case .nick(let index): colour ? TerminalStyle.nickPalette[min(max(index, 0), TerminalStyle.nickPalette.count - 1)] : ""
            }
        }
    }

    /// A row that starts with this scalar is drawn in reverse video throughout (a selected message): the row's base.
    public static let selectedRow: Unicode.Scalar = Unicode.Scalar(UInt32(0xFDEF)) ?? "\u{FFFD}"

    /// Nick colours: the standard and bright green, blue, magenta and cyan (SGR 32-36, 92-96), which 16-colour
    /// terminals have; red and yellow are left out, since they mean an error and a mention here.
    public static let nickPalette = ["32", "34", "35", "36", "92", "94", "95", "96"]

    /// Whether `scalar` is a style mark (or any noncharacter of the block the marks come from).
    public static func isMark(_ scalar: Unicode.Scalar) -> Bool { (0xFDD0...0xFDEF).contains(scalar.value) }

    /// `text` written by someone else with every style mark replaced by U+FFFD: a peer's text can never set a style.
    public static func unmarked(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isMark) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isMark($0) ? "\u{FFFD}" : $0 }))
    }

    /// `text` in the style of `mark`, back to plain after it.
    public static func styled(_ text: String, _ mark: Mark) -> String { mark.text + text + Mark.plain.text }

    /// A row as the terminal gets it: every mark becomes its SGR sequence (or, where it sets only colour and
    /// `colour` is off, nothing), on top of `base` (the reverse video of a selected row) and of the row's own base
    /// (``selectedRow``). A row that set anything ends plain, so no style runs into the next row.
    public static func paint(_ row: String, colour: Bool, base: String = "") -> String {
        guard row.unicodeScalars.contains(where: isMark) else { return row }
        var out = ""
        var rowBase = base
        var styled = false
        var first = true
        for scalar in row.unicodeScalars {
            defer { first = false }
            guard isMark(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            if first && scalar == selectedRow {
                rowBase += "\u{1B}[7m"
                out += "\u{1B}[7m"
                styled = true
                continue
            }
            guard let mark = Mark.allCases.first(where: { $0.scalar == scalar }) else { continue }
            let parameters = mark.parameters(colour: colour)
            out += "\u{1B}[0m" + rowBase + (parameters.isEmpty ? "" : "\u{1B}[\(parameters)m")
            styled = true
        }
        return styled ? out + "\u{1B}[0m" + base : out
    }

    /// `row` without its marks: what it says, for a test or a width.
    public static func plain(_ row: String) -> String {
        guard row.unicodeScalars.contains(where: isMark) else { return row }
        return String(String.UnicodeScalarView(row.unicodeScalars.filter { !isMark($0) }))
    }
}
