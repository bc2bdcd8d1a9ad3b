/// One key press (or a run of typed text) from a terminal in raw mode.
public enum Key: Equatable, Sendable {
    /// Printable text, whole UTF-8 characters (a paste may bring many).
    case text(String)
    case enter, backspace, delete, tab, escape
    case left, right, up, down, home, end, pageUp, pageDown
    /// Ctrl plus a letter, as the lowercase letter (`Ctrl-C` is `.control("c")`).
    case control(Character)
    /// A bracketed paste (`ESC [200~ … ESC [201~`): the pasted text whole, line breaks included.
    case paste(String)
    /// Alt (Meta) plus a key: the character it types (`Alt-1` is `.alt("1")`, Alt-Backspace `.alt("\u{7F}")`,
    /// Alt-Enter `.alt("\r")`).
    case alt(Character)
}

/// Turns the bytes a terminal sends into keys, sans-IO. Escape sequences (CSI `ESC [ … final`, SS3 `ESC O x`) become
/// their keys; Esc and one character that make up the whole read (or are followed by another Esc, as a held Alt key
/// repeats) are Alt plus that character, as terminals send Alt-x in one write; an Esc followed by anything else is Esc
/// and then that key, never a swallowed byte (an Esc pressed and text typed after it may reach one read); a lone Esc
/// at the end of a read is Esc. UTF-8 split across reads is joined.
public struct KeyDecoder: Sendable {
    /// Bytes of an unfinished sequence or character, kept for the next read.
    private var pending: [UInt8] = []

    public init() {}

    /// The keys in `bytes`, in order.
    public mutating func feed<C: Collection>(_ bytes: C) -> [Key] where C.Element == UInt8 {
        pending += bytes
        var keys: [Key] = []
        var text: [UInt8] = []
        func flushText() {
            if !text.isEmpty { keys.append(.text(String(decoding: text, as: UTF8.self))) }
            text.removeAll()
        }
        var index = 0
        let input = pending
        scan: while index < input.count {
            let byte = input[index]
            switch byte {
            case 0x1B:
                flushText()
                guard index + 1 < input.count else {
                    keys.append(.escape)
                    index += 1
                    break
                }
                let next = input[index + 1]
                if next == UInt8(ascii: "[") {
                    guard let end = input[(index + 2)...].firstIndex(where: { (0x40...0x7E).contains($0) }) else { break scan }
                    if input[(index + 2)..<end].elementsEqual(Self.pasteStart), input[end] == UInt8(ascii: "~") {
                        // The paste is taken whole once its end marker is here; until then it waits (bounded).
                        guard let close = Self.find(Self.pasteEnd, in: input, from: end + 1) else {
                            guard input.count - index > Self.maxPaste else { break scan }
                            keys.append(.paste(String(decoding: input[(end + 1)...], as: UTF8.self)))
                            index = input.count
                            break
                        }
                        keys.append(.paste(String(decoding: input[(end + 1)..<close], as: UTF8.self)))
                        index = close + Self.pasteEnd.count
                        continue
                    }
                    if let key = Self.csi(parameters: Array(input[(index + 2)..<end]), final: input[end]) { keys.append(key) }
                    index = end + 1
                } else if next == UInt8(ascii: "O") {
                    guard index + 2 < input.count else { break scan }
                    if let key = Self.ss3(input[index + 2]) { keys.append(key) }
                    index += 3
                } else if let (character, length) = Self.altCharacter(input, at: index + 1) {
                    keys.append(.alt(character))
                    index += 1 + length
                } else {
                    keys.append(.escape)
                    index += 1
                }
            case 0x0D, 0x0A:
                flushText()
                keys.append(.enter)
                // CR LF (a paste, or a terminal that sends both) is one Enter.
                index += (byte == 0x0D && index + 1 < input.count && input[index + 1] == 0x0A) ? 2 : 1
            case 0x7F, 0x08:
                flushText()
                keys.append(.backspace)
                index += 1
            case 0x09:
                flushText()
                keys.append(.tab)
                index += 1
            case 0x00..<0x20:
                flushText()
                keys.append(.control(Character(Unicode.Scalar(byte + 0x60))))
                index += 1
            case 0x80...:
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                guard index + length <= input.count else { break scan }
                text += input[index..<(index + length)]
                index += length
            default:
                text.append(byte)
                index += 1
            }
        }
        flushText()
        pending = Array(input[index...])
        return keys
    }

    /// The parameters of the CSI that starts a bracketed paste (`ESC [200~`), and the sequence that ends it.
    private static let pasteStart = Array("200".utf8)
    private static let pasteEnd = Array("\u{1B}[201~".utf8)
    /// A paste whose end never comes is taken as it is beyond this many bytes, so memory stays bounded.
    public static let maxPaste = 1 << 20

    /// The index of the first `needle` in `input` at or after `start`.
    private static func find(_ needle: [UInt8], in input: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, input.count >= needle.count, start <= input.count - needle.count else { return nil }
        for candidate in start...(input.count - needle.count) where input[candidate] == needle[0] {
            if input[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate }
        }
        return nil
    }

    /// The character after an Esc at `start` and its length in bytes, when Esc and it are an Alt key: a printable
    /// character, DEL (Alt-Backspace) or a line break (Alt-Enter) that ends the read or is followed by another Esc.
    private static func altCharacter(_ input: [UInt8], at start: Int) -> (Character, Int)? {
        let byte = input[start]
        let length: Int
        switch byte {
        case 0x20...0x7F, 0x0D, 0x0A: length = 1
        case 0xC0...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF7: length = 4
        default: return nil
        }
        let end = start + length
        guard end <= input.count, end == input.count || input[end] == 0x1B else { return nil }
        let text = String(decoding: input[start..<end], as: UTF8.self)
        guard text.count == 1, let character = text.first else { return nil }
        return (character, length)
    }

    /// `ESC [ parameters final`: arrows, Home/End, Delete, PageUp/PageDown (modifiers such as `1;5` are ignored).
    private static func csi(parameters: [UInt8], final: UInt8) -> Key? {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            let first = String(decoding: parameters.prefix { $0 != UInt8(ascii: ";") }, as: UTF8.self)
            switch first {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            case "5": return .pageUp
            case "6": return .pageDown
            default: return nil
            }
        default: return nil  // function keys, focus reports: nothing we bind
        }
    }

    /// `ESC O x`: the arrows and Home/End in application cursor mode.
    private static func ss3(_ final: UInt8) -> Key? {
        switch final {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        default: nil
        }
    }
}
