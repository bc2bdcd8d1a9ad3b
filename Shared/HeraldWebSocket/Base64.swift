/// Standard base64 (RFC 4648 §4, with padding), as used by `Sec-WebSocket-Key` and `Sec-WebSocket-Accept`.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes bytes with `=` padding.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let b0 = input[index]
            let b1 = index + 1 < input.count ? input[index + 1] : 0
            let b2 = index + 2 < input.count ? input[index + 2] : 0
            output.append(alphabet[Int(b0 >> 2)])
            output.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            output.append(index + 1 < input.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            output.append(index + 2 < input.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes padded standard base64; returns `nil` for anything else (wrong length, bad characters or padding,
    /// non-zero bits after the last character).
    public static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            var values: [UInt8] = [0, 0, 0, 0]
            var padding = 0
            for offset in 0..<4 {
                let char = input[index + offset]
                if char == UInt8(ascii: "=") {
                    // Padding only in the last quantum, only in its last two places, and nothing after it.
                    guard isLast, offset >= 2 else { return nil }
                    padding += 1
                } else {
                    guard padding == 0, let value = sextet(char) else { return nil }
                    values[offset] = value
                }
            }
            output.append(values[0] << 2 | values[1] >> 4)
            if padding < 2 { output.append(values[1] << 4 | values[2] >> 2) } else if values[1] & 0x0F != 0 { return nil }
            if padding < 1 { output.append(values[2] << 6 | values[3]) } else if padding == 1, values[2] & 0x03 != 0 { return nil }
            index += 4
        }
        return output
    }

    private static func sextet(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): char - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): char - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
