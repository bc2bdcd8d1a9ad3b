/// The little JSON the JWTs need (objects of strings and integers), written by hand so the module needs no
/// Foundation, and escaped per RFC 8259 §7 so any claim value yields valid JSON.
enum JSONText {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `text` as a JSON string literal, quotes included: `"` and `\` escaped, control characters as `\n`, `\t`,
    /// ... or `\u00XX`; everything else, non-ASCII included, as its UTF-8 bytes.
    static func quoted(_ text: String) -> String {
        var output: [UInt8] = [UInt8(ascii: "\"")]
        output.reserveCapacity(text.utf8.count + 2)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: output += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: output += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x00..<0x20:
                output += Array("\\u00".utf8) + [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
        // Swift strings are valid Unicode, so the bytes copied through are valid UTF-8.
        return String(decoding: output, as: UTF8.self)
    }
}
