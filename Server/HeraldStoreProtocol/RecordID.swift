/// Public record ids: a store's integer key with a one-letter prefix, "c12", "m7", "n3".
///
/// Every store backend (SQLite rowids, PostgreSQL bigint keys) formats and parses ids with this one type, so
/// clients see the same ids whichever store a server runs on. Parsing is strict (the prefix, then a positive
/// decimal without leading zeros that fits Int64), so "m07", "m-1", "m", "x1" or "m1 " are simply not found
/// rather than aliases of real rows.
public enum RecordID {
    /// The prefix of conversation ids ("c12").
    public static let conversation: UInt8 = UInt8(ascii: "c")
    /// The prefix of message ids ("m7").
    public static let message: UInt8 = UInt8(ascii: "m")
    /// The prefix of bell notification ids ("n3").
    public static let notification: UInt8 = UInt8(ascii: "n")
    /// The prefix of push outbox ids ("p42"): one alert for one device, the opaque reference of `--push-preview none`.
    public static let push: UInt8 = UInt8(ascii: "p")

    /// The public id of the row with key `key`: `prefix` followed by the decimal key.
    public static func format(_ prefix: UInt8, _ key: Int64) -> String {
        // Written into the new string's own storage (the prefix, a sign, up to 19 digits): joining two Strings took
        // ~1,700 instructions an id, and a send formats two.
        String(unsafeUninitializedCapacity: 21) { buffer in
            var start = 21
            var rest = key.magnitude
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            if key < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            start -= 1
            buffer[start] = prefix
            let count = 21 - start
            for index in 0..<count { buffer[index] = buffer[start + index] }
            return count
        }
    }

    /// The key inside `id` when it is `prefix` plus a canonical positive decimal that fits Int64; else nil.
    public static func parse(_ prefix: UInt8, _ id: String) -> Int64? {
        let utf8 = id.utf8
        guard utf8.count >= 2, utf8.count <= 20, utf8.first == prefix else { return nil }
        let digits = utf8.dropFirst()
        guard digits.first != UInt8(ascii: "0") else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }
}
