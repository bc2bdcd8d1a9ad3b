/// Counts deliveries per receiver per message: a bitset per receiving device over message keys, so a repeat is
/// a duplicate and, once the run has drained, expected minus unique deliveries is the number lost.
struct DeliveryLedger {
    private var seen: [[UInt64]]
    /// Deliveries of each key so far (for in-flight accounting).
    private(set) var perKey: [Int32] = []
    private(set) var unique = 0
    private(set) var duplicates = 0
    /// Deliveries whose key was never sent (corrupted text): should stay 0.
    private(set) var unknown = 0

    init(receivers: Int) { seen = [[UInt64]](repeating: [], count: receivers) }

    /// Records that `receiver` got `key`; returns true when it is the first time.
    mutating func record(receiver: Int, key: Int, sentKeys: Int) -> Bool {
        guard receiver >= 0, receiver < seen.count, key >= 0, key < sentKeys else {
            unknown += 1
            return false
        }
        let word = key >> 6
        if seen[receiver].count <= word { seen[receiver] += [UInt64](repeating: 0, count: word - seen[receiver].count + 64) }
        let bit = UInt64(1) << UInt64(key & 63)
        if seen[receiver][word] & bit != 0 {
            duplicates += 1
            return false
        }
        seen[receiver][word] |= bit
        unique += 1
        if perKey.count <= key { perKey += [Int32](repeating: 0, count: key - perKey.count + 1024) }
        perKey[key] += 1
        return true
    }

    func deliveries(of key: Int) -> Int { key < perKey.count ? Int(perKey[key]) : 0 }
}
