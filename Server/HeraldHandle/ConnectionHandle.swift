/// A connection's identity that any thread may hold: which loop, which descriptor, which use of it. The one handle
/// type of the server: the event loops address connections by it, the engine its WebSocket sessions, and the sync
/// core its devices (``DeviceHandle`` there), so nothing is converted between them.
///
/// Descriptor numbers are reused after close; the generation tells the reuses apart, so a message
/// addressed to a handle whose connection has gone is dropped instead of reaching a stranger.
///
/// Equality, hashing and the initialiser are `@inlinable`: the sync core keys its per-device dictionaries by this
/// type and the fan-out looks connections up by it in other modules, and there a call per hash would cost.
public struct ConnectionHandle: Sendable, Hashable, CustomStringConvertible {
    /// Index of the owning loop in `LoopGroup.loops`.
    public let loopIndex: Int
    /// The socket descriptor while the connection is open.
    public let fd: Int32
    /// How many times the loop has used this descriptor number; bumped on every accept.
    public let generation: UInt32

    /// Creates a handle. Normally only the loop makes these.
    @inlinable
    public init(loopIndex: Int, fd: Int32, generation: UInt32) {
        self.loopIndex = loopIndex
        self.fd = fd
        self.generation = generation
    }

    @inlinable
    public static func == (lhs: ConnectionHandle, rhs: ConnectionHandle) -> Bool {
        lhs.loopIndex == rhs.loopIndex && lhs.fd == rhs.fd && lhs.generation == rhs.generation
    }

    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(loopIndex)
        hasher.combine(fd)
        hasher.combine(generation)
    }

    public var description: String { "conn(\(loopIndex).\(fd).\(generation))" }
}
