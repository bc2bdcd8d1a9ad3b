/// Search within one conversation's whole history, answered from a full-text index (SQLite FTS5, PostgreSQL GIN).
///
/// What is found is the text as it stands: an edit is found by its new words only (M1), an unsent message never (M2).
/// Only a participant finds anything (R5).
public protocol MessageSearchStore: AnyObject {
    /// Up to `limit` messages of `conversation` whose text holds every one of `words`, each as a word or the start of
    /// one, newest first, strictly older than the message `before` when given (the last hit of the previous page).
    /// Empty when `user` does not participate (R5), when `words` is empty, or for unknown or malformed ids.
    func searchMessages(conversation: String, user: String, words: SearchWords, before: String?, limit: Int) throws -> [MessageRecord]
}

/// The words of a search, as every store matches them: runs of letters, digits and combining marks, lowercased; every
/// other character separates words. Both indexes split text the same way (FTS5's `unicode61` tokenizer, PostgreSQL's
/// `simple` configuration), so a word typed is a word stored, in any language.
public struct SearchWords: Sendable, Equatable {
    /// At most this many words count: each one is another index lookup.
    public static let maxWords = 8
    /// A longer word is cut to this many characters (it still matches as the start of the stored word).
    public static let maxWordCharacters = 64

    /// The words, in the order typed, each once.
    public let words: [String]

    public init(_ text: String) {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        func finish() {
            if !current.isEmpty {
                let word = String(String(current).lowercased().prefix(Self.maxWordCharacters))
                if !words.contains(word) && words.count < Self.maxWords { words.append(word) }
                current = String.UnicodeScalarView()
            }
        }
        for scalar in text.unicodeScalars {
            if Self.isWordScalar(scalar) { current.append(scalar) } else { finish() }
        }
        finish()
        self.words = words
    }

    /// Whether `text` holds every word, each as a word of it or the start of one, compared as the indexes compare them
    /// (the words of `text` split and lowercased by the same rule): what a store checks for messages its index does
    /// not hold yet.
    public func match(_ text: String) -> Bool {
        let own = SearchWords.allWords(of: text)
        // By scalars, as the indexes compare (a decomposed accent is a scalar of its own there).
        return words.allSatisfy { word in own.contains { $0.unicodeScalars.starts(with: word.unicodeScalars) } }
    }

    /// Every word of `text`, lowercased, uncut and unbounded in number.
    static func allWords(of text: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isWordScalar(scalar) {
                current.append(scalar)
            } else if !current.isEmpty {
                words.append(String(current).lowercased())
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current).lowercased()) }
        return words
    }

    /// True when nothing searchable was typed.
    public var isEmpty: Bool { words.isEmpty }

    /// Letters, numbers and marks (the `unicode61` tokenizer's token characters, marks kept so a decomposed accent stays
    /// inside its word).
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark, .privateUse:
            true
        default:
            false
        }
    }

    /// The FTS5 query: every word as a quoted prefix (`"word"*`), ANDed. A word holds only letters, digits and marks,
    /// never a quote, so no word can break out of its quotes into FTS5's query syntax.
    public var fts5Expression: String {
        words.map { "\"" + $0 + "\"*" }.joined(separator: " AND ")
    }

    /// The PostgreSQL `to_tsquery` text: every word as a quoted lexeme matched as a prefix (`'word':*`), ANDed; a word
    /// holds no quote or backslash, so none breaks out of its quotes.
    public var tsqueryExpression: String {
        words.map { "'" + $0 + "':*" }.joined(separator: " & ")
    }
}
