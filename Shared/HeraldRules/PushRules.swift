/// P1, P3, P4: which devices of one recipient get a message's push once its grace period has ended.
///
/// One pure function for every path a push takes (this node's devices, the devices other nodes report, a push another
/// node asks this one to make), so the rule is written once. Whether the message was read meanwhile (P4) costs a store
/// read that belongs in the same transaction as the outbox write; so the decision names the devices that get the push
/// *unless it was read*, and a caller reads that state only when there is someone to alert.
///
/// ```swift
/// let decision = PushRules.decide(in: "c1", devices: [PushCandidate(device: 7, isForeground: false, viewing: nil)])
/// if case .unlessRead(let devices) = decision {
///     try store.transaction { if try !store.isRead(user: "bob", message: "m1") { enqueue(devices) } }
/// }
/// ```
public enum PushRules {
    /// No push when a device of the recipient is viewing `conversation` (P1) or the recipient muted it and is not
    /// mentioned (N1, N2); otherwise the live devices in the background (P3), unless the recipient has read the message
    /// by now (P4). Quiet hours (N3) change how the push looks (``RecipientAlert/quiet``), not who gets it.
    ///
    /// - Parameters:
    ///   - conversation: the message's conversation.
    ///   - devices: what is known of the recipient's devices, wherever they are connected.
    ///   - alert: the recipient's mute, mention and quiet hours for this message.
    ///
    /// Called for every recipient of every message on a node of a cluster, so it is one loop over plain fields (no key
    /// paths or closures, which generic code resolves at run time) and inlinable into the caller's specialisation.
    @inlinable
    public static func decide<Device>(
        in conversation: String, devices: [PushCandidate<Device>], alert: RecipientAlert = .plain
    ) -> PushDecision<Device> {
        guard alert.alerts else { return .none }  // N1, N2
        var background: [Device] = []
        for candidate in devices {
            if candidate.viewing == conversation { return .none }  // P1
            if candidate.isLive && !candidate.isForeground { background.append(candidate.device) }  // P3
        }
        return background.isEmpty ? .none : .unlessRead(background)
    }

    /// A device registered with a push provider (APNs, FCM, Web Push, the app's webhook) that has no live connection
    /// anywhere counts as in the background: a locked phone. One that is connected is left out, so it is alerted once,
    /// over its connection. Feed the result to ``decide(in:devices:)`` beside the connected devices.
    ///
    /// - Parameters:
    ///   - registered: the recipient's registered devices, by the name they connect with.
    ///   - connectedNames: the names of the recipient's devices connected now, on any node.
    @inlinable
    public static func unconnected<Device>(_ registered: [(name: String, device: Device)], connectedNames: Set<String>) -> [PushCandidate<Device>] {
        var candidates: [PushCandidate<Device>] = []
        for entry in registered where !connectedNames.contains(entry.name) {
            candidates.append(PushCandidate(device: entry.device, isForeground: false, viewing: nil))
        }
        return candidates
    }

    /// P1: a device of the recipient is viewing `conversation`, so nobody is alerted. Also a cheap first check for a
    /// caller that learns of the recipient's devices in two steps (its own, then other nodes').
    @inlinable
    public static func isViewed<Device>(_ conversation: String, onAnyOf devices: [PushCandidate<Device>]) -> Bool {
        for candidate in devices where candidate.viewing == conversation { return true }
        return false
    }
}

/// The outcome of ``PushRules/decide(in:devices:)``.
public enum PushDecision<Device> {
    /// Nobody is alerted: a device is viewing the conversation, or none is in the background.
    case none
    /// These devices get the push, unless the recipient has read the message (P4: check it with the outbox write).
    case unlessRead([Device])
}

/// What the push rule needs to know of one device of a recipient.
public struct PushCandidate<Device> {
    /// How the caller names the device (a local handle, another node's device key, ...).
    public var device: Device
    /// False when the app is in the background.
    public var isForeground: Bool
    /// The conversation the device is viewing (S1: its thread, in the foreground), if any.
    public var viewing: String?
    /// Whether a push can reach it now (connected and synced). A device that cannot still counts for P1.
    public var isLive: Bool

    /// Describes one device.
    public init(device: Device, isForeground: Bool, viewing: String?, isLive: Bool = true) {
        self.device = device
        self.isForeground = isForeground
        self.viewing = viewing
        self.isLive = isLive
    }

    /// The same device under another name (e.g. wrapped to tell this node's devices from other nodes').
    public func map<Other>(_ rename: (Device) -> Other) -> PushCandidate<Other> {
        PushCandidate<Other>(device: rename(device), isForeground: isForeground, viewing: viewing, isLive: isLive)
    }
}

extension PushCandidate: Sendable where Device: Sendable {}
extension PushCandidate: Equatable where Device: Equatable {}
extension PushDecision: Sendable where Device: Sendable {}
extension PushDecision: Equatable where Device: Equatable {}
