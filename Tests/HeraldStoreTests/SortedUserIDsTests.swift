import HeraldStoreProtocol
import HeraldTestSupport
import Testing

/// `SortedUserIDs.index` stands in for `WHERE user_id = ?` on a participant list both stores sort by UTF-8 bytes
/// (SQLite BINARY, PostgreSQL "C"), so it must find exactly what a byte comparison finds.
@Suite("Sorted user ids")
struct SortedUserIDsTests {
    /// Pieces of ids: ASCII, two- and four-byte UTF-8, and a decomposed "é" (e + U+0301), which Swift's `==` calls
    /// equal to the composed one although its bytes differ: the search must keep them apart, as SQL does.
    static let pieces = ["a", "b", "z", "0", "-", "é", "e\u{301}", "ß", "日", "😀", "A"]

    static func randomID(_ generator: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    @Test("Finds every id of a byte-sorted list and nothing else (property, 200 lists)")
    func matchesByteComparison() {
        var generator = SeededGenerator(seed: 0x5357_4944)
        for _ in 0..<200 {
            var byBytes: [[UInt8]: String] = [:]
            for _ in 0..<Int.random(in: 0...40, using: &generator) {
                let id = Self.randomID(&generator)
                byBytes[Array(id.utf8)] = id
            }
            let sorted = byBytes.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { byBytes[$0]! }
            for (position, id) in sorted.enumerated() {
                #expect(SortedUserIDs.index(of: id, in: sorted) == position, "\(sorted) \(id)")
            }
            for _ in 0..<10 {
                let probe = Self.randomID(&generator)
                let expected = sorted.firstIndex { Array($0.utf8) == Array(probe.utf8) }
                #expect(SortedUserIDs.index(of: probe, in: sorted) == expected, "\(sorted) \(probe)")
            }
        }
    }

    @Test("Canonically equal ids with different bytes are different users")
    func canonicalEquivalentsStayApart() {
        let composed = "ren\u{E9}"
        let decomposed = "rene\u{301}"
        #expect(composed == decomposed)  // Swift's String equality
        let sorted = [decomposed, "zoe"]  // "e" (0x65) sorts before "é" (0xC3 0xA9)
        #expect(SortedUserIDs.index(of: decomposed, in: sorted) == 0)
        #expect(SortedUserIDs.index(of: composed, in: sorted) == nil)
        #expect(SortedUserIDs.index(of: composed, in: [decomposed, composed]) == 1)
    }
}
