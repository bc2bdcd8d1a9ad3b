/// E1 and E2 wording: the line under a thread while others type, and the presence shown in a thread's title.
public enum TypingText {
    /// "Bob is typing…", "Bob and Carol are typing…", "Several people are typing…"; nil when nobody types.
    public static func line(names: [String]) -> String? {
        switch names.count {
        case 0: nil
        case 1: "\(names[0]) is typing…"
        case 2: "\(names[0]) and \(names[1]) are typing…"
        default: "Several people are typing…"
        }
    }

    /// The words a conversation's list row shows while someone in it types.
    public static let listRow = "typing…"
}

/// How a thread's title shows the other person's presence (E2).
public enum PresenceText {
    /// "online", "away", "last seen 14:05" (the local time of `lastSeen`, `utcOffsetSeconds` east of UTC), or "offline"
    /// when the time is not known.
    public static func title(_ state: PresenceState, utcOffsetSeconds: Int) -> String {
        switch state.status {
        case .online: return "online"
        case .away: return "away"
        case .offline:
            guard let lastSeen = state.lastSeen else { return "offline" }
            let seconds = lastSeen / 1000 + Int64(utcOffsetSeconds)
            // Floor division, so a time before 1970 (or a negative offset near it) still reads as a clock time.
            let minuteOfDay = ((seconds / 60) % 1440 + 1440) % 1440
            let hours = minuteOfDay / 60, minutes = minuteOfDay % 60
            return "last seen \(hours < 10 ? "0" : "")\(hours):\(minutes < 10 ? "0" : "")\(minutes)"
        }
    }
}
