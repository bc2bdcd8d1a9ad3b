/// Base64 (RFC 4648) in the two forms Herald speaks, with one encoder and one strict decoder: standard with padding
/// (§4: `Sec-WebSocket-Key` and `Sec-WebSocket-Accept`) and URL-safe without (§5: JWT segments, Web Push and VAPID
/// keys). Strict: a decoder that accepted two spellings of the same bytes would let a token or key be altered
/// without changing what it means.
public struct Base64Codec: Sendable {
    /// `+` and `/`, padded with `=` to a multiple of four characters (RFC 4648 §4).
    public static let standard = Base64Codec(character62: UInt8(ascii: "+"), character63: UInt8(ascii: "/"), padded: true)
    /// `-` and `_`, without padding (RFC 4648 §5, as RFC 7515 §2 writes JWT segments).
    public static let url = Base64Codec(character62: UInt8(ascii: "-"), character63: UInt8(ascii: "_"), padded: false)

    @usableFromInline let character62: UInt8
    @usableFromInline let character63: UInt8
    @usableFromInline let padded: Bool

    init(character62: UInt8, character63: UInt8, padded: Bool) {
        self.character62 = character62
        self.character63 = character63
        self.padded = padded
    }

    /// The characters of `bytes`.
    // Inlinable so that callers in other modules get a specialised loop (a token's segments are decoded on every
    // /sync upgrade).
    @inlinable
    public func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = second == nil ? nil : iterator.next()
            let value = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(character(value >> 18 & 0x3F))
            output.append(character(value >> 12 & 0x3F))
            if second != nil { output.append(character(value >> 6 & 0x3F)) } else if padded { output.append(UInt8(ascii: "=")) }
            if third != nil { output.append(character(value & 0x3F)) } else if padded { output.append(UInt8(ascii: "=")) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes the UTF-8 `text` spells; nil for a character outside the alphabet, padding where this form has none
    /// (or anywhere but the last two places of a padded text), an impossible length, or non-zero bits after the last
    /// byte (a non-canonical spelling).
    @inlinable
    public func decode<UTF8Bytes: Collection<UInt8>>(utf8 text: UTF8Bytes) -> [UInt8]? {
        // A native string's bytes are contiguous: decoding them as a buffer runs specialised, where the generic walk
        // over the bytes of an unknown collection cost ~300 instructions a character.
        if let decoded = text.withContiguousStorageIfAvailable({ decode(characters: $0[...]) }) { return decoded }
        return decode(characters: Array(text)[...])
    }

    @inlinable
    func decode<Characters: BidirectionalCollection<UInt8>>(characters: Characters) -> [UInt8]? where Characters.SubSequence == Characters {
        var characters = characters
        if padded {
            guard characters.count % 4 == 0 else { return nil }
            for _ in 0..<2 where characters.last == UInt8(ascii: "=") { characters = characters.dropLast() }
        }
        var output: [UInt8] = []
        output.reserveCapacity(characters.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in characters {
            guard let value = sextet(character) else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        // 6 leftover bits (one stray character) cannot come from any byte string; set leftover bits would let two
        // spellings decode to the same bytes.
        guard bits < 6, buffer == 0 else { return nil }
        return output
    }

    @inlinable
    func character(_ sextet: UInt32) -> UInt8 {
        switch sextet {
        case 0..<26: UInt8(ascii: "A") + UInt8(sextet)
        case 26..<52: UInt8(ascii: "a") + UInt8(sextet - 26)
        case 52..<62: UInt8(ascii: "0") + UInt8(sextet - 52)
        case 62: character62
        default: character63
        }
    }

    @inlinable
    func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case character62: 62
        case character63: 63
        default: nil
        }
    }
}
