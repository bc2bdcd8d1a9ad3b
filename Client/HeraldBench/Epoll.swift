import Glibc

// Swift's Glibc module does not import <sys/epoll.h>, and CLinux (which does) is HeraldNet's private shim, so
// the three calls are declared here by their C symbols. Arguments are ints and pointers only, which the Swift
// and C calling conventions pass alike.
@_silgen_name("epoll_create1") private func c_epoll_create1(_ flags: Int32) -> Int32
@_silgen_name("epoll_ctl") private func c_epoll_ctl(_ epfd: Int32, _ op: Int32, _ fd: Int32, _ event: UnsafeMutableRawPointer?) -> Int32
@_silgen_name("epoll_wait") private func c_epoll_wait(_ epfd: Int32, _ events: UnsafeMutableRawPointer, _ max: Int32, _ timeout: Int32) -> Int32

/// A level-triggered epoll set whose events carry the descriptor number.
///
/// `struct epoll_event` is `{ uint32_t events; uint64_t data; }`, packed on x86-64 (12 bytes) and naturally
/// aligned elsewhere (16 bytes); it is read and written here byte-wise at those offsets.
struct Epoll: ~Copyable {
    static let readable: UInt32 = 0x001      // EPOLLIN
    static let writable: UInt32 = 0x004      // EPOLLOUT
    static let error: UInt32 = 0x008         // EPOLLERR
    static let hangUp: UInt32 = 0x010        // EPOLLHUP

    #if arch(x86_64)
    private static let eventSize = 12
    private static let dataOffset = 4
    #else
    private static let eventSize = 16
    private static let dataOffset = 8
    #endif

    private let fd: Int32
    private let buffer: UnsafeMutableRawPointer
    private let capacity: Int

    /// One ready descriptor.
    struct Ready {
        var fd: Int32
        var events: UInt32
    }

    init(capacity: Int = 1024) throws(BenchError) {
        fd = c_epoll_create1(0o2000000)  // EPOLL_CLOEXEC
        guard fd >= 0 else { throw BenchError("epoll_create1: \(String(cString: strerror(errno)))") }
        self.capacity = capacity
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity * Self.eventSize, alignment: 8)
    }

    deinit {
        buffer.deallocate()
        close(fd)
    }

    /// EPOLL_CTL_ADD (1) or EPOLL_CTL_MOD (3) for `fd` with interest `events`.
    func set(_ socket: Int32, events: UInt32, adding: Bool) -> Bool {
        var event = (UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &event) { raw in
            raw.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt64(UInt32(bitPattern: socket)), toByteOffset: Self.dataOffset, as: UInt64.self)
            return c_epoll_ctl(fd, adding ? 1 : 3, socket, raw.baseAddress) == 0
        }
    }

    /// EPOLL_CTL_DEL (2).
    func remove(_ socket: Int32) { _ = c_epoll_ctl(fd, 2, socket, nil) }

    /// Waits up to `timeoutMs` and calls `body` for each ready descriptor.
    func wait(timeoutMs: Int32, _ body: (Ready) -> Void) {
        let count = c_epoll_wait(fd, buffer, Int32(capacity), timeoutMs)
        guard count > 0 else { return }
        for index in 0..<Int(count) {
            let base = index * Self.eventSize
            let events = buffer.loadUnaligned(fromByteOffset: base, as: UInt32.self)
            let data = buffer.loadUnaligned(fromByteOffset: base + Self.dataOffset, as: UInt64.self)
            body(Ready(fd: Int32(truncatingIfNeeded: data), events: events))
        }
    }
}
