/// How one write of a connection's queue goes to the kernel, from what ``WriteQueue/fill(_:capacity:maxBytes:inlineScratch:)``
/// gathered: pure, so the choice is tested without sockets.
enum WriteShape: Equatable {
    /// One contiguous piece (a request/response connection's usual case): `send` skips the kernel's msghdr and iovec
    /// import.
    case single
    /// Several small pieces (a fan-out receiver's frames, each a reference to a shared body, or a /sync event's head and
    /// body): copied into the loop's gather buffer and sent as one. The kernel's setup per piece in `sendmsg` costs more
    /// than the copy (perf of a fan-out to 1,000: `_copy_from_iter` over many small iovecs was 11% of the loop's CPU,
    /// the copy here 1.5%; with 300-byte frames, ~67 to a send, gathering up to 64 KiB instead of 16 KiB took the raw
    /// fan-out to 1,000 from 5.0-7.3 M to 7.4-8.7 M deliveries/s).
    case gathered
    /// Large pieces: `sendmsg` over them where they are; copying them first would only add a copy.
    case scattered

    /// Largest average piece that is still gathered.
    static let largestAverageGatheredPiece = 1024

    static func of(pieces: Int, bytes: Int, gatherCapacity: Int) -> WriteShape {
        if pieces == 1 { return .single }
        if bytes <= gatherCapacity && bytes <= pieces * largestAverageGatheredPiece { return .gathered }
        return .scattered
    }
}
