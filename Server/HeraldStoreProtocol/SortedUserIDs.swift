/// User ids sorted the way both stores list a conversation's participants where the database collates by bytes
/// (SQLite's BINARY, PostgreSQL's "C"): by their UTF-8 bytes. Swift's `<` on String follows Unicode canonical
/// equivalence instead, so the search compares bytes, exactly as the SQL it stands in for would.
public enum SortedUserIDs {
    /// Where `user` is in `sorted`, by binary search; nil when it is not there (or when `sorted` is in another
    /// order and the search misses it: a caller that cannot rule that out scans after a miss).
    ///
    /// The bytes are compared where the strings keep them, contiguous (native strings do): a group's send looks its
    /// sender up twice among up to 1,001 members, and the generic comparison of two `UTF8View`s, element by element,
    /// was ~3% of the sync thread under a group's load.
    public static func index(of user: String, in sorted: [String]) -> Int? {
        var key = user
        return key.withUTF8 { key in
            var low = 0
            var high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                let order = compare(sorted[middle], key)
                if order == 0 { return middle }
                if order < 0 { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    /// Negative, zero or positive as `candidate`'s UTF-8 bytes sort before, equal to or after `key`.
    private static func compare(_ candidate: String, _ key: UnsafeBufferPointer<UInt8>) -> Int {
        if let order = candidate.utf8.withContiguousStorageIfAvailable({ compare($0, key) }) { return order }
        var copy = candidate
        return copy.withUTF8 { compare($0, key) }
    }

    private static func compare(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        // User ids are short: a plain loop over the bytes (this module imports no C library).
        for index in 0..<min(left.count, right.count) where left[index] != right[index] {
            return Int(left[index]) - Int(right[index])
        }
        return left.count - right.count
    }
}
