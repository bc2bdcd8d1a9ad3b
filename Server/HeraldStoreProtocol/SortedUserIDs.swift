/// User ids sorted the way both stores list a conversation's participants where the database collates by bytes
/// (SQLite's BINARY, PostgreSQL's "C"): by their UTF-8 bytes. Swift's `<` on String follows Unicode canonical
/// equivalence instead, so the search compares bytes, exactly as the SQL it stands in for would.
public enum SortedUserIDs {
    /// Where `user` is in `sorted`, by binary search; nil when it is not there (or when `sorted` is in another
    /// order and the search misses it: a caller that cannot rule that out scans after a miss).
    public static func index(of user: String, in sorted: [String]) -> Int? {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            let candidate = sorted[middle].utf8
            if candidate.elementsEqual(user.utf8) { return middle }
            if candidate.lexicographicallyPrecedes(user.utf8) { low = middle + 1 } else { high = middle }
        }
        return nil
    }
}
