/// Eight bytes at a time over JSON string contents: how far a run of bytes that need no attention goes, so the
/// reader and the writer look at single bytes only where a quote, a backslash, a control byte (or, for the reader, a
/// non-ASCII byte) is. A message's text is most of a request and of an event, and a byte-by-byte loop over it was a
/// measurable share of a send's instructions.
///
/// A byte is marked by its high bit in the tests below: `w & 0x80..` for bytes >= 0x80, `(w - 0x20..) & ~w & 0x80..`
/// for bytes below 0x20, and the zero-byte test `(v - 0x01..) & ~v & 0x80..` on `w` XORed with `"` and with `\`.
/// Each test is nonzero exactly when some byte of the word has the property, which is all a skip needs.
enum JSONWordScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The first index at or after `index` (a multiple of 8 bytes on) whose word holds a byte JSON must escape in a
    /// string (< 0x20, `"`, `\`), or whose word runs past `count`.
    static func skipUnescaped(_ base: UnsafeRawPointer, from index: Int, count: Int) -> Int {
        var index = index
        while index + 8 <= count {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            guard escapeMarks(word) == 0 else { break }
            index += 8
        }
        return index
    }

    /// As ``skipUnescaped(_:from:count:)``, also stopping at a word with a byte >= 0x80 (which the reader must
    /// validate as UTF-8).
    static func skipPlainASCII(_ base: UnsafeRawPointer, from index: Int, count: Int) -> Int {
        var index = index
        while index + 8 <= count {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            guard (escapeMarks(word) | (word & highs)) == 0 else { break }
            index += 8
        }
        return index
    }

    private static func escapeMarks(_ word: UInt64) -> UInt64 {
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let control = (word &- ones &* 0x20) & ~word
        return (control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs
    }
}
