import HeraldRules

/// "Did you mean …?" for a mistyped command, sans-IO: the known names nearest to what was typed by edit distance.
public enum CommandSuggestion {
    /// Names longer than this are not compared (a pasted paragraph after a slash is no typo of a command).
    public static let longestCompared = 32

    /// The known names closest to `typed` (several when they tie), or none when nothing is close: one edit for names
    /// of up to four letters, two for longer ones. An edit is inserting, deleting or changing a letter, or swapping
    /// two neighbouring ones (`opne` is one edit from `open`).
    public static func closest(to typed: String, among names: [String]) -> [String] {
        let typed = typed.lowercased()
        guard !typed.isEmpty, typed.count <= longestCompared else { return [] }
        let allowed = typed.count <= 4 ? 1 : 2
        let scored = Set(names).map { (name: $0, distance: distance(typed, $0)) }.filter { $0.distance <= allowed }
        guard let best = scored.map(\.distance).min() else { return [] }
        return scored.filter { $0.distance == best }.map(\.name).sorted()
    }

    /// The notice for an unknown command: names the closest ones when there are any.
    public static func notice(unknown typed: String, among names: [String]) -> String {
        let shown = TerminalText.line(String(typed.prefix(longestCompared)))
        let nearest = closest(to: typed, among: names)
        guard !nearest.isEmpty else { return "unknown command /\(shown): /help lists them" }
        return "unknown command /\(shown); did you mean \(nearest.map { "/" + $0 }.joined(separator: " or "))?"
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of neighbours,
    /// by characters.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { best = min(best, before[j - 2] + 1) }
                current[j] = best
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
