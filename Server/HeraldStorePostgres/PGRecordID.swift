/// Public ids are bigint keys with a one-letter prefix: "c12", "m7", "n3", exactly like the SQLite store's.
///
/// Parsing is strict (prefix, then a positive decimal without leading zeros that fits Int64), so
/// "m07", "m-1", "m", "x1" or "m1 " are simply not found rather than aliases of real rows.
enum PGRecordID {
    static let conversation: UInt8 = UInt8(ascii: "c")
    static let message: UInt8 = UInt8(ascii: "m")
    static let notification: UInt8 = UInt8(ascii: "n")

    static func format(_ prefix: UInt8, _ key: Int64) -> String {
        String(decoding: CollectionOfOne(prefix), as: UTF8.self) + String(key)
    }

    static func parse(_ prefix: UInt8, _ id: String) -> Int64? {
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
