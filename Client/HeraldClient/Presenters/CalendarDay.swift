/// Local calendar days for the thread's date separators, sans-IO: the time zone comes in as an offset from UTC and
/// "today" as a day number, so the same messages give the same lines on every machine and in tests.
///
/// A day is a count of days since 1970-01-01 in local time (negative before it). The proleptic Gregorian calendar is
/// used throughout, as `date` and every chat client do.
public enum CalendarDay {
    /// The local day of `milliseconds` since the epoch at `utcOffsetSeconds` east of UTC. Any value is accepted: a
    /// server's timestamp is not trusted to be sane, and nothing here can overflow (seconds fit many times over).
    public static func day(ofMilliseconds milliseconds: Int64, utcOffsetSeconds: Int) -> Int64 {
        // Real offsets are within ±26 hours; anything beyond is clamped so the sum cannot overflow.
        let offset = Int64(min(max(utcOffsetSeconds, -100_000), 100_000))
        let seconds = floorDivide(milliseconds, 1000) + offset
        return floorDivide(seconds, 86_400)
    }

    /// The day a separator announces above a message written at `current` when the message before it was written at
    /// `previous` (nil: it is the first of the conversation): the new day when they fall on different local days.
    public static func separator(previous: Int64?, current: Int64, utcOffsetSeconds: Int) -> Int64? {
        let day = day(ofMilliseconds: current, utcOffsetSeconds: utcOffsetSeconds)
        guard let previous else { return day }
        return day == self.day(ofMilliseconds: previous, utcOffsetSeconds: utcOffsetSeconds) ? nil : day
    }

    /// The separator's row: `── Monday 7 December ──`, with the year when it is not `today`'s year (or `today` is
    /// unknown).
    public static func line(day: Int64, today: Int64?) -> String {
        "── \(label(day: day, today: today)) ──"
    }

    /// `Monday 7 December` (`Monday 7 December 2025` in another year than `today`'s).
    public static func label(day: Int64, today: Int64?) -> String {
        let date = civil(day)
        let year = today.map { civil($0).year } == date.year ? "" : " \(date.year)"
        return "\(weekdays[Int(weekday(day))]) \(date.day) \(months[date.month - 1])\(year)"
    }

    /// 0 for Monday … 6 for Sunday (1970-01-01 was a Thursday).
    public static func weekday(_ day: Int64) -> Int64 {
        let shifted = day % 7 + 3  // Thursday is 3
        return (shifted % 7 + 7) % 7
    }

    /// Year, month (1-12) and day of the month of a day number (H. Hinnant's civil-from-days algorithm).
    public static func civil(_ day: Int64) -> (year: Int64, month: Int, day: Int) {
        // Days are clamped to ±100 million years' worth so the arithmetic below stays in range for any input.
        let z = min(max(day, -36_500_000_000), 36_500_000_000) + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, Int(month), Int(dayOfMonth))
    }

    private static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]

    /// Division rounding towards negative infinity (times before 1970 belong to the day they fall in).
    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
