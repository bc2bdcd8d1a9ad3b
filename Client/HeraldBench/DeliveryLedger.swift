/// Counts deliveries per receiver per message: a bitset over receivers per message key, so a repeat is a duplicate
/// and, once the run has drained, expected minus unique deliveries is the number lost.
///
/// Key-major in one flat array (key `k`'s bits are words `k * wordsPerKey ..<`): keys only grow, so a new key appends
/// its words at the end. Per receiver, a list grown by each receiver's first delivery of a new block of keys touched a
/// thousand separately allocated arrays and checked two of them for uniqueness per delivery (4% of the generator).
struct DeliveryLedger {
    private let receivers: Int
    private let wordsPerKey: Int
    private var seen: [UInt64] = []
    /// Deliveries of each key so far (for in-flight accounting).
    private(set) var perKey: [Int32] = []
    private(set) var unique = 0
    private(set) var duplicates = 0
    /// Deliveries whose key was never sent (corrupted text): should stay 0.
    private(set) var unknown = 0

    init(receivers: Int) {
        self.receivers = max(receivers, 0)
        wordsPerKey = max((receivers + 63) / 64, 1)
    }

    /// Records that `receiver` got `key`; returns true when it is the first time.
    mutating func record(receiver: Int, key: Int, sentKeys: Int) -> Bool {
        guard receiver >= 0, receiver < receivers, key >= 0, key < sentKeys else {
            unknown += 1
            return false
        }
        if perKey.count <= key {
            // Room for 1,024 more keys at a time.
            let added = key - perKey.count + 1024
            perKey += repeatElement(0, count: added)
            seen += repeatElement(0, count: added * wordsPerKey)
        }
        let word = key * wordsPerKey + receiver >> 6
        let bit = UInt64(1) << UInt64(receiver & 63)
        if seen[word] & bit != 0 {
            duplicates += 1
            return false
        }
        seen[word] |= bit
        unique += 1
        perKey[key] += 1
        return true
    }

    func deliveries(of key: Int) -> Int { key < perKey.count ? Int(perKey[key]) : 0 }
}
