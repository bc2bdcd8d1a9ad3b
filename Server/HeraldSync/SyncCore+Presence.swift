import HeraldProtocol

/// Counts over the local devices' scenes, so a send or a push decision for a group of 1,000 does not look at every
/// recipient's devices when nobody could match: most conversations have no viewer, most devices are in the foreground.
struct ScenePresence {
    /// Local devices viewing each conversation (S1, P1), without zero entries.
    private(set) var viewers: [String: Int] = [:]
    /// Local devices in the background (P3: only they can get a push).
    private(set) var backgroundDevices = 0

    /// Whether any local device is viewing `conversation`.
    func isViewed(_ conversation: String) -> Bool { viewers[conversation] != nil }

    /// A device's scene goes from `old` (nil: it was not connected) to `new` (nil: it is gone).
    mutating func change(from old: SceneReport?, to new: SceneReport?) {
        if let old {
            if let viewed = old.viewing {
                let remaining = (viewers[viewed] ?? 1) - 1
                viewers[viewed] = remaining > 0 ? remaining : nil
            }
            if !old.foreground { backgroundDevices -= 1 }
        }
        if let new {
            if let viewed = new.viewing { viewers[viewed, default: 0] += 1 }
            if !new.foreground { backgroundDevices += 1 }
        }
    }
}
