/// The one rule for drawing text that someone else wrote (messages, previews, names, titles, toasts, bell items,
/// server errors) on a terminal: whatever a terminal would read as an instruction instead of a character is turned
/// into a character that only shows, so a peer can never move the cursor, overwrite other cells, set the window
/// title, write the clipboard or recolour the screen, and never make text read in another order than it was written.
///
/// - C0 controls and ESC are shown as their control pictures (U+2400 + code: ESC is ␛, CR ␍, BS ␈, BEL ␇, LF ␊),
///   DEL as ␡; TAB is one space. A line break (LF, CR LF, U+2028, U+2029) shows as ␊ in ``line(_:)``; in
///   ``lines(_:)`` it stays a line break (one `"\n"`), which the layout turns into a row of the message's own cells.
/// - C1 controls (U+0080-U+009F: CSI, OSC, NEL, …) have no control pictures: each is shown as U+FFFD (�).
/// - Bidirectional formatting (embeddings and overrides U+202A-U+202E, isolates U+2066-U+2069, the marks U+200E,
///   U+200F and U+061C) is removed, so text is shown in the order it was written.
///
/// Every character the result holds takes the columns ``DisplayWidth`` counts for it, so widths are computed on
/// exactly what is drawn. The rule is idempotent: text made drawable is left as it is.
public enum TerminalText {
    /// `text` for one row: nothing in it moves the cursor.
    public static func line(_ text: String) -> String {
        drawable(text, keepingLineBreaks: false)
    }

    /// `text` for a message's rows: as ``line(_:)``, except that line breaks stay, each as one `"\n"`.
    public static func lines(_ text: String) -> String {
        drawable(text, keepingLineBreaks: true)
    }

    /// Whether `scalar` is removed by the rule: bidirectional formatting.
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether `scalar` would be read by a terminal as a control: C0, DEL and C1.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The replacement of a C1 control.
    static let c1Replacement: Unicode.Scalar = "\u{FFFD}"

    private static func drawable(_ text: String, keepingLineBreaks: Bool) -> String {
        // Fast path: most text has nothing to change.
        if !text.unicodeScalars.contains(where: { isControl($0) || isBidiControl($0) || $0.value == 0x2028 || $0.value == 0x2029 }) {
            return text
        }
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            switch scalar.value {
            case 0x09:
                out.append(" ")
            case 0x0D where keepingLineBreaks && pending == "\n":
                // CR LF is one line break; the LF is written on the next turn.
                continue
            case 0x0A, 0x2028, 0x2029:
                // On one row every line break shows as ␊.
                out.append(keepingLineBreaks ? "\n" : picture("\n"))
            case 0x00...0x1F, 0x7F:
                out.append(picture(scalar))
            case 0x80...0x9F:
                out.append(c1Replacement)
            default:
                if !isBidiControl(scalar) { out.append(scalar) }
            }
        }
        return String(out)
    }

    /// The control picture of a C0 control or DEL (U+2400-U+241F, U+2421).
    private static func picture(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let value: UInt32 = scalar.value == 0x7F ? 0x2421 : 0x2400 + scalar.value
        return Unicode.Scalar(value) ?? c1Replacement
    }
}
