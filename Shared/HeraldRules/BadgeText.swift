/// Badge text shared by the Messages badge (U5) and the bell badge (B2).
public enum BadgeText {
    /// The largest count shown as a number; above it the badge reads "99+".
    public static let largestShownCount = 99

    /// U5: "" at 0 (and for a count that should never be negative), "1"…"99", then "99+".
    public static func text(for count: Int) -> String {
        if count <= 0 { return "" }
        if count > largestShownCount { return "99+" }
        return String(count)
    }
}
