/// A live device as the server names it to the sync core: the connection it is on (event loop, descriptor, and the
/// descriptor's use count, so a reused descriptor is another device). The sync core only hashes and compares it.
///
/// ``SyncCore`` is generic over its device type (tests use integers), and generic code called from another module
/// runs unspecialised: every dictionary lookup and copy of a device-keyed value went through witness tables and
/// run-time metadata lookups. Naming the server's concrete type here lets HeraldSync compile its hot entry points
/// specialised for it (`@_specialize(exported: true, where Device == DeviceHandle)`).
public struct DeviceHandle: Sendable, Hashable, CustomStringConvertible {
    /// Index of the connection's event loop.
    public let loopIndex: Int
    /// The connection's socket descriptor.
    public let descriptor: Int32
    /// How many times the loop has used this descriptor number.
    public let generation: UInt32

    public init(loopIndex: Int, descriptor: Int32, generation: UInt32) {
        self.loopIndex = loopIndex
        self.descriptor = descriptor
        self.generation = generation
    }

    public var description: String { "conn(\(loopIndex).\(descriptor).\(generation))" }
}
