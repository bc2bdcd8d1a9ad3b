/// A log-linear histogram of microsecond latencies: exact below 1,024 µs, then 512 buckets per power of two
/// (under 0.2% error), so millions of samples cost a fixed 70 KiB and percentiles need no sorting.
struct LatencyHistogram {
    private var counts = [UInt64](repeating: 0, count: 1024 + 54 * 512)
    private(set) var total: UInt64 = 0
    private(set) var maxMicros: UInt64 = 0

    mutating func record(micros: UInt64) {
        counts[Self.bucket(micros)] += 1
        total += 1
        if micros > maxMicros { maxMicros = micros }
    }

    mutating func reset() { self = LatencyHistogram() }

    /// The latency at quantile `q` (0...1) in milliseconds; 0 with no samples.
    func percentileMs(_ q: Double) -> Double {
        guard total > 0 else { return 0 }
        let rank = UInt64((Double(total) * q).rounded(.up))
        var seen: UInt64 = 0
        for index in counts.indices {
            seen += counts[index]
            if seen >= max(rank, 1) { return Double(min(Self.value(index), maxMicros)) / 1000 }
        }
        return Double(maxMicros) / 1000
    }

    private static func bucket(_ value: UInt64) -> Int {
        if value < 1024 { return Int(value) }
        let exponent = 63 - value.leadingZeroBitCount  // >= 10
        let mantissa = Int(value >> UInt64(exponent - 9))  // 512...1023
        return min(1024 + (exponent - 10) * 512 + (mantissa - 512), 1024 + 54 * 512 - 1)
    }

    /// The upper edge of a bucket.
    private static func value(_ index: Int) -> UInt64 {
        if index < 1024 { return UInt64(index) }
        let exponent = (index - 1024) / 512 + 10
        let mantissa = UInt64((index - 1024) % 512 + 512)
        return ((mantissa + 1) << UInt64(exponent - 9)) - 1
    }
}
