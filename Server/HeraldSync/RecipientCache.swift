/// Each busy group's members with their live devices on this node, so a message to a group of 1,000 finds every
/// member's devices by position instead of hashing 1,000 user ids (perf of a /sync fan-out to 1,000: those String-keyed
/// lookups were a sixth of the sync thread).
///
/// An entry is the list of participants it was built from and, at the same positions, each one's devices as the
/// core's `devicesByUser` held them. The device states are shared objects, so cursors and scenes stay current; only a
/// change to who is connected makes an entry stale, and every such change empties the cache (the core calls
/// ``devicesChanged()``), so no entry outlives the devices it names: the next fan-out to a group builds its entry again,
/// which costs what a fan-out without the cache costs. Participants that changed (a member left or joined) no longer
/// equal the entry's list, so the entry is built again too.
struct RecipientCache<Device: Hashable> {
    private struct Entry {
        let users: [String]
        let devices: [[UserDevice<Device>]]
    }

    private var entries: [String: Entry] = [:]

    /// Smaller conversations look their few members up directly (a DM gains nothing from an entry).
    static var minimumUsers: Int { 16 }
    /// Most conversations kept; past it the cache starts over (bounded memory: at most this many lists of members).
    static var capacity: Int { 256 }

    /// Some user's list of live devices changed (a device connected or left).
    mutating func devicesChanged() {
        if !entries.isEmpty { entries.removeAll(keepingCapacity: true) }
    }

    /// The live devices of each of `users` (the participants of `conversation`, in the same order), from the entry
    /// when it is current, else looked up with `lookup` and kept.
    mutating func devices(
        of users: [String], in conversation: String, lookup: (String) -> [UserDevice<Device>]?
    ) -> [[UserDevice<Device>]] {
        // Array equality is one pointer comparison when the store handed out the same participants list again.
        if let entry = entries[conversation], entry.users == users { return entry.devices }
        let devices = users.map { lookup($0) ?? [] }
        if entries.count >= Self.capacity, entries[conversation] == nil { entries.removeAll(keepingCapacity: true) }
        entries[conversation] = Entry(users: users, devices: devices)
        return devices
    }
}
