/// Immutable bytes created once and shared by reference: the unit of fan-out.
///
/// A broadcast frame is encoded once into a `SharedBytes`; every receiver's write queue then holds a
/// reference to it plus an offset, never a copy (Redis does the same with `replBufBlock`). The memory is
/// allocated once in `init` and freed when the last queue lets go of it.
///
/// ```swift
/// let frame = SharedBytes(encodedFrame)           // one copy, here
/// group.send(frame, to: subscribers)              // zero copies per receiver
/// ```
public final class SharedBytes: @unchecked Sendable {
    // @unchecked: `base` is written only in `init` and read-only afterwards, so any thread may read it.
    package let base: UnsafeRawPointer
    /// The number of bytes.
    public let count: Int

    /// Copies `bytes` once into a new immutable buffer.
    public convenience init(_ bytes: [UInt8]) {
        self.init(count: bytes.count) { target in
            bytes.withUnsafeBytes { source in
                if let from = source.baseAddress, source.count > 0 {
                    target.baseAddress!.copyMemory(from: from, byteCount: source.count)
                }
            }
        }
    }

    /// Copies `bytes` once into a new immutable buffer.
    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count) { target in
            if let from = bytes.baseAddress, bytes.count > 0 {
                target.baseAddress!.copyMemory(from: from, byteCount: bytes.count)
            }
        }
    }

    /// Allocates `count` bytes and lets `initialize` write them in place, so an encoder can build a
    /// frame directly in its final home without an intermediate array.
    ///
    /// - Parameters:
    ///   - count: The exact size of the buffer.
    ///   - initialize: Writes all `count` bytes; the buffer is immutable once it returns.
    public init(count: Int, initializingWith initialize: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        do {
            try initialize(UnsafeMutableRawBufferPointer(start: storage, count: count))
        } catch {
            storage.deallocate()
            throw error
        }
        self.base = UnsafeRawPointer(storage)
        self.count = count
    }

    /// Calls `body` with a view of the bytes.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes as a new array (a copy; for tests and logging, not for the hot path).
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    deinit {
        UnsafeMutableRawPointer(mutating: base).deallocate()
    }
}
