/// A connection's identity that any thread may hold: which loop, which descriptor, which use of it.
///
/// Descriptor numbers are reused after close; the generation tells the reuses apart, so a message
/// addressed to a handle whose connection has gone is dropped instead of reaching a stranger.
public struct ConnectionHandle: Sendable, Hashable, CustomStringConvertible {
    /// Index of the owning loop in `LoopGroup.loops`.
    public let loopIndex: Int
    /// The socket descriptor while the connection is open.
    public let fd: Int32
    /// How many times the loop has used this descriptor number; bumped on every accept.
    public let generation: UInt32

    /// Creates a handle. Normally only the loop makes these.
    public init(loopIndex: Int, fd: Int32, generation: UInt32) {
        self.loopIndex = loopIndex
        self.fd = fd
        self.generation = generation
    }

    public var description: String { "conn(\(loopIndex).\(fd).\(generation))" }
}
