import Glibc
import HeraldClient
import Testing

/// The C library's column count of one wide character (`wcwidth(3)`), which terminals follow; -1 when unprintable.
@_silgen_name("wcwidth") private func wcwidth(_ character: Int32) -> Int32

/// Rows are laid out by ``DisplayWidth``: a character it counts narrower than a terminal draws it would push the row
/// past the screen's edge, onto the next row's cells.
@Suite("DisplayWidth: never narrower than a terminal draws")
struct DisplayWidthTests {
    @Test("Every assigned scalar counts at least the columns wcwidth (C.UTF-8) gives it: soft hyphen, U+0600, Tangut, Yijing hexagrams, vertical forms included")
    func neverNarrowerThanWcwidth() throws {
        // This thread only: the C library's width tables are those of a UTF-8 locale.
        let utf8 = try #require(newlocale(LC_CTYPE_MASK, "C.UTF-8", nil))
        let previous = uselocale(utf8)
        defer {
            uselocale(previous)
            freelocale(utf8)
        }
        var narrower: [String] = []
        for value in UInt32(0x20)...UInt32(0x3FFFF) {
            // Scalars Swift's Unicode tables do not know yet are left to a later Swift.
            guard let scalar = Unicode.Scalar(value), scalar.properties.age != nil else { continue }
            let drawn = Int(wcwidth(Int32(bitPattern: value)))
            if drawn >= 0, DisplayWidth.of(Character(scalar)) < drawn { narrower.append("U+" + String(value, radix: 16, uppercase: true)) }
        }
        #expect(narrower.isEmpty, "counted narrower than drawn: \(narrower.prefix(40))")
    }

    @Test("A prepended concatenation mark is one cluster with what follows, and both are drawn")
    func prependedMarkCluster() {
        let cluster = "\u{600}12"
        #expect(cluster.count == 2 && DisplayWidth.of(cluster) == 3)
        #expect(DisplayWidth.of(String(repeating: "\u{AD}", count: 80)) == 80)
        #expect(DisplayWidth.of("\u{200B}\u{2060}") == 0, "zero-width characters are not drawn")
    }

    @Test("A peer's cluster of 20,000 prepended marks is measured in one pass, not one call per mark", .timeLimit(.minutes(1)))
    func manyPrependedMarks() {
        let cluster = String(repeating: "\u{600}", count: 20_000) + "a"
        #expect(cluster.count == 1)
        #expect(DisplayWidth.of(cluster) == 20_001)
        #expect(DisplayWidth.truncate(cluster, to: 10) == "…", "a cluster wider than the row is not drawn in part")
    }
}
