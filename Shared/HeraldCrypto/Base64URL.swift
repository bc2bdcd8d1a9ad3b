/// Base64url without padding (RFC 4648 §5): the alphabet of JWT segments (RFC 7515 §2) and of Web Push
/// subscription keys and VAPID keys (RFC 8292 §3.2), so the server and the client share one strict codec.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes bytes without `=` padding.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let value = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(value >> 18 & 0x3F)])
            output.append(alphabet[Int(value >> 12 & 0x3F)])
            if second != nil { output.append(alphabet[Int(value >> 6 & 0x3F)]) }
            if third != nil { output.append(alphabet[Int(value & 0x3F)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded base64url; nil on any character outside the alphabet, on padding, or on an
    /// impossible length (one leftover character) or non-zero trailing bits (a non-canonical encoding).
    public static func decode<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        decode(utf8: text.utf8)
    }

    /// Decodes the UTF-8 bytes of unpadded base64url text; see ``decode(_:)``.
    public static func decode<UTF8Bytes: Collection<UInt8>>(utf8 text: UTF8Bytes) -> [UInt8]? {
        // A native string's bytes are contiguous: decoding them as a buffer runs specialized, where the generic walk
        // over the bytes of an unknown collection cost ~300 instructions a character (a token's three segments were
        // a fifth of a /sync upgrade).
        if let decoded = text.withContiguousStorageIfAvailable({ decode(bytes: $0) }) { return decoded }
        return decode(bytes: Array(text))
    }

    private static func decode<Bytes: Sequence<UInt8>>(bytes: Bytes) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.underestimatedCount * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            guard let value = sextet(byte) else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        // 6 leftover bits (one stray character) cannot come from any byte string; set leftover bits
        // would let two spellings decode to the same bytes.
        guard bits < 6, buffer == 0 else { return nil }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
