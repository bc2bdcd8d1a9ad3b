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
        let receivers: ContiguousArray<GroupReceiver<Device>>
    }

    private var entries: [String: Entry] = [:]

    /// Smaller conversations look their few members up directly (a DM gains nothing from an entry).
    static var minimumUsers: Int { 16 }
    /// Most conversations kept; past it the cache starts over (bounded memory: at most this many lists of members).
    static var capacity: Int { 256 }

    /// Some user's list of live devices changed (a device connected or left): every entry may name a device state
    /// the core no longer holds, so none is kept.
    mutating func devicesChanged() {
        if !entries.isEmpty { entries.removeAll(keepingCapacity: true) }
    }

    /// The live devices of `users` (the participants of `conversation`), member by member in the list's order, from the
    /// entry when it is current, else looked up with `lookup` and kept. The states stay valid until the next
    /// ``devicesChanged()``: use them within the fan-out that asked.
    mutating func receivers(
        of users: [String], in conversation: String, lookup: (String) -> [UserDevice<Device>]?
    ) -> ContiguousArray<GroupReceiver<Device>> {
        // Array equality is one pointer comparison when the store handed out the same participants list again.
        if let entry = entries[conversation], entry.users == users { return entry.receivers }
        var receivers = ContiguousArray<GroupReceiver<Device>>()
        for (member, user) in users.enumerated() {
            for entry in lookup(user) ?? [] {
                receivers.append(GroupReceiver(member: member, device: entry.device, state: Unmanaged.passUnretained(entry.state)))
            }
        }
        if entries.count >= Self.capacity, entries[conversation] == nil { entries.removeAll(keepingCapacity: true) }
        entries[conversation] = Entry(users: users, receivers: receivers)
        return receivers
    }
}

/// One live device of a group member, as a fan-out walks them: the member's position in the participant list (its
/// seq is at the same position), the device, and its state without a reference count. A fan-out to 1,000 touched two
/// counts per device (the member's device list and the state), each an atomic operation on an object of its own
/// (perf: a tenth of the sync thread); the cache's entries hold none of those, and the core holds every state alive
/// for as long as an entry can name it (see ``RecipientCache``).
struct GroupReceiver<Device: Hashable> {
    let member: Int
    let device: Device
    let state: Unmanaged<DeviceState>
}
