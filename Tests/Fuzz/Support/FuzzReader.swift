/// Reads a fuzz input as a stream of decisions: structure-aware harnesses turn libFuzzer's bytes into choices
/// (which frame, how long, where to split) so that mutations of a valid input stay mostly valid.
///
/// Reading past the end yields zeros, so every input, even the empty one, maps to some run.
public struct FuzzReader {
    /// The whole input.
    public let bytes: [UInt8]
    /// Index of the next unread byte.
    public private(set) var position = 0

    /// Starts reading `bytes` from the beginning.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { position >= bytes.count }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A little-endian 16-bit value.
    public mutating func uint16() -> Int { Int(byte()) | Int(byte()) << 8 }

    /// A little-endian 64-bit value (a seed).
    public mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) { value |= UInt64(byte()) << UInt64(shift) }
        return value
    }

    /// Up to `count` next bytes (fewer at the end).
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, position + max(0, count))
        defer { position = max(position, end) }
        return position < end ? Array(bytes[position..<end]) : []
    }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] { bytes(bytes.count - position) }
}

/// SplitMix64: a tiny deterministic generator, so a fuzz input replays identically.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// Seeds the generator.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Splits `count` bytes into consecutive ranges of 1...`maxChunk` bytes drawn from `seed` (the first
/// fuzz bytes choose the chunking, as uWebSockets' `makeChunked` does).
public func chunkRanges(count: Int, seed: UInt64, maxChunk: Int) -> [Range<Int>] {
    var generator = SplitMix64(seed: seed)
    var ranges: [Range<Int>] = []
    var start = 0
    while start < count {
        let size = Int.random(in: 1...max(1, maxChunk), using: &generator)
        let end = min(count, start + size)
        ranges.append(start..<end)
        start = end
    }
    return ranges
}
