/// A provider's `Retry-After` (RFC 9110 §10.2.3), read into a bounded value: `delay-seconds` or an `HTTP-date`.
///
/// The header is untrusted input: a value of any size, sign or shape must never trap or overflow. Digits are read
/// saturating (a delay beyond Int64 is "very long", not a crash), a date only for years 1...9999, and the wait a
/// value asks for is always cut to a limit (``maximumSeconds`` unless the server is told otherwise). Anything else
/// (a sign, a fraction, words) is no Retry-After at all: the gateway's own backoff applies.
public enum RetryAfter: Sendable, Equatable, CustomStringConvertible {
    /// `delay-seconds`: wait this long from the answer (never negative; saturated at Int64.max).
    case delay(seconds: Int64)
    /// `HTTP-date`: wait until then, as seconds since the Unix epoch.
    case date(epochSeconds: Int64)

    /// The longest wait a provider can impose on one push: an hour. A provider asking for longer gets its push
    /// retried after an hour (and again under the same limit if it still refuses), until the push expires.
    public static let maximumSeconds: Int64 = 3_600

    /// Parses a header value (spaces, tabs and a trailing CRLF around it allowed); nil when it is neither form.
    public init?(header: String) {
        let value = header.trimmingSpaces
        if let seconds = Self.delaySeconds(value) {
            self = .delay(seconds: seconds)
        } else if let date = HTTPDate.epochSeconds(value) {
            self = .date(epochSeconds: date)
        } else {
            return nil
        }
    }

    /// Seconds to wait from `now` (ms since the epoch), always within `0...limit` (a negative limit counts as 0).
    /// A date in the past asks for no wait.
    public func seconds(now: Int64, limit: Int64 = maximumSeconds) -> Int64 {
        let limit = max(limit, 0)
        switch self {
        case .delay(let seconds):
            return min(max(seconds, 0), limit)
        case .date(let epochSeconds):
            let (wait, overflow) = epochSeconds.subtractingReportingOverflow(now / 1_000)
            if overflow { return epochSeconds > 0 ? limit : 0 }
            return min(max(wait, 0), limit)
        }
    }

    public var description: String {
        switch self {
        case .delay(let seconds): "\(seconds)"
        case .date(let epochSeconds): "at \(epochSeconds)"
        }
    }

    /// `delay-seconds = 1*DIGIT`, saturated at Int64.max; nil for anything that is not only ASCII digits.
    static func delaySeconds(_ text: String) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowAdd) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            value = overflowShift || overflowAdd ? Int64.max : sum
        }
        return value
    }
}

/// HTTP-date (RFC 9110 §5.6.7) to seconds since the epoch: the preferred IMF-fixdate and, as recipients must accept
/// them, the obsolete RFC 850 and asctime forms. Only years 1...9999 (each field's digits bounded), so the arithmetic
/// below stays far from Int64's limits.
enum HTTPDate {
    static func epochSeconds(_ text: String) -> Int64? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        switch words.count {
        case 6:
            // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
            guard words[0].hasSuffix(","), words[5] == "GMT", words[1].utf8.count == 2, words[3].utf8.count == 4 else { return nil }
            return compose(year: number(words[3]), month: month(words[2]), day: number(words[1]), time: words[4])
        case 4:
            // rfc850-date: "Sunday, 06-Nov-94 08:49:37 GMT"; a two-digit year is read as 1970...2069.
            guard words[0].hasSuffix(","), words[3] == "GMT" else { return nil }
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].utf8.count == 2, parts[2].utf8.count == 2, let short = number(parts[2]) else { return nil }
            return compose(year: short < 70 ? 2_000 + short : 1_900 + short, month: month(parts[1]), day: number(parts[0]), time: words[2])
        case 5:
            // asctime-date: "Sun Nov  6 08:49:37 1994"
            guard (1...2).contains(words[2].utf8.count), words[4].utf8.count == 4 else { return nil }
            return compose(year: number(words[4]), month: month(words[1]), day: number(words[2]), time: words[3])
        default:
            return nil
        }
    }

    /// "HH:MM:SS" with the date's parts, each in range (a leap second allowed), as epoch seconds.
    private static func compose(year: Int64?, month: Int64?, day: Int64?, time: Substring) -> Int64? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.utf8.count == 2 }),
            let year, (1...9_999).contains(year), let month, let day, (1...31).contains(day),
            let hour = number(clock[0]), hour <= 23, let minute = number(clock[1]), minute <= 59, let second = number(clock[2]), second <= 60
        else { return nil }
        return daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// 1...12 for a month's three-letter name (case-sensitive, as the grammar says).
    private static func month(_ name: Substring) -> Int64? {
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return names.firstIndex(of: String(name)).map { Int64($0 + 1) }
    }

    /// A short run of ASCII digits (at most 4, so no overflow); nil otherwise.
    private static func number(_ text: Substring) -> Int64? {
        guard (1...4).contains(text.utf8.count) else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
