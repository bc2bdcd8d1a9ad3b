import HeraldStoreProtocol
import Testing

/// How a search's text becomes words, the same for both stores: letters, digits and marks; everything else separates,
/// so nothing typed is query syntax.
@Suite("SearchWords")
struct SearchWordsTests {
    @Test("Words are runs of letters and digits, lowercased, each once, in order")
    func words() {
        #expect(SearchWords("Deploy, FRIDAY! deploy").words == ["deploy", "friday"])
        #expect(SearchWords("don't e-mail v2.1").words == ["don", "t", "e", "mail", "v2", "1"])
        #expect(SearchWords("東京 Ünïcode café").words == ["東京", "ünïcode", "café"])
        #expect(SearchWords(" \t?!*\"' ").isEmpty)
    }

    @Test("Query syntax of either store cannot be typed: quotes, stars, colons, braces and operators only separate")
    func noSyntax() {
        let words = SearchWords(#"a" OR b* NEAR(c) {text}:d 'e':* & !f | g\"#)
        #expect(words.words == ["a", "or", "b", "near", "c", "text", "d", "e", "f", "g"].prefix(SearchWords.maxWords).map { $0 })
        #expect(words.fts5Expression == words.words.map { "\"\($0)\"*" }.joined(separator: " AND "))
        #expect(words.tsqueryExpression == words.words.map { "'\($0)':*" }.joined(separator: " & "))
    }

    @Test("A text matches when every word is one of its words or the start of one, in any case")
    func match() {
        #expect(SearchWords("HARB lun").match("Lunch at the Harbour café?"))
        #expect(SearchWords("café").match("Harbour CAFÉ"))
        #expect(!SearchWords("arbour").match("Harbour"), "a word's middle is not its start")
        #expect(!SearchWords("harbour pizza").match("Harbour café"), "every word")
        #expect(SearchWords("नमस्").match("नमस्ते दुनिया"))
        #expect(SearchWords("e").match("e\u{301}tude"), "by scalars: a decomposed accent follows its letter")
    }

    @Test("At most eight words count, each at most 64 characters")
    func limits() {
        #expect(SearchWords((1...20).map { "w\($0)" }.joined(separator: " ")).words.count == SearchWords.maxWords)
        #expect(SearchWords(String(repeating: "x", count: 200)).words == [String(repeating: "x", count: SearchWords.maxWordCharacters)])
    }
}
