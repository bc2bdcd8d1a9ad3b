/// Replays byte-stream inputs into an incremental parser in every way the network could deliver them, so one
/// fixture proves chunking-independence (after NIO's `ByteToMessageDecoderVerifier` and uWebSockets'
/// fuzz helpers).
///
/// Each input is replayed:
/// - whole, in one call;
/// - one byte per call;
/// - split in two at every index k;
/// - in chunk sizes drawn from seeded generators;
/// and every chunk is handed over as a slice of a larger buffer with junk bytes before and after it, so a parser
/// that reads outside the slice it was given produces a different transcript.
///
/// ```swift
/// let mismatches = ParserVerifier.verify(bytes, expecting: expected,
///     makeSession: { WebSocketStateMachine(role: .server) },
///     feed: { connection, chunk in ... },
///     transcript: { connection in ... })
/// #expect(mismatches.isEmpty, "\(mismatches)")
/// ```
public enum ParserVerifier {
    /// One way of cutting an input into calls.
    public enum Chunking: Sendable, Hashable, CustomStringConvertible {
        /// The whole input in one call.
        case whole
        /// One byte per call.
        case oneBytePerCall
        /// Two calls: bytes `0..<k` and `k...`.
        case split(at: Int)
        /// Chunk sizes from a ``SeededGenerator`` with this seed (sizes 1...maxChunk, biased small).
        case seeded(UInt64)

        public var description: String {
            switch self {
            case .whole: "whole"
            case .oneBytePerCall: "one byte per call"
            case .split(let k): "split at \(k)"
            case .seeded(let seed): "seeded chunking \(seed)"
            }
        }
    }

    /// A chunking whose transcript differed from the expected one.
    public struct Mismatch<Transcript>: CustomStringConvertible {
        /// How the input was cut.
        public var chunking: Chunking
        /// What was expected.
        public var expected: Transcript
        /// What the parser produced.
        public var actual: Transcript
        public var description: String { "[\(chunking)] expected \(expected), got \(actual)" }
    }

    /// Seeds used when the caller gives none.
    public static let defaultSeeds: [UInt64] = [1, 2, 3, 0xC0FFEE, 0xDEAD_BEEF]

    /// Junk placed around every chunk; any read outside the chunk picks these up.
    public static let junkBefore = Array("BEFORE".utf8)
    /// Junk placed after every chunk.
    public static let junkAfter = Array("AFTER".utf8)

    /// Every chunking tried for an input of `count` bytes.
    public static func chunkings(forCount count: Int, seeds: [UInt64] = defaultSeeds) -> [Chunking] {
        var result: [Chunking] = [.whole, .oneBytePerCall]
        if count > 1 { result += (1..<count).map { .split(at: $0) } }
        result += seeds.map { .seeded($0) }
        return result
    }

    /// The ranges of `0..<count` that `chunking` feeds, in order; empty inputs give no calls except `.whole`.
    public static func ranges(for chunking: Chunking, count: Int, maxChunk: Int = 64) -> [Range<Int>] {
        switch chunking {
        case .whole:
            return [0..<count]
        case .oneBytePerCall:
            return (0..<count).map { $0..<($0 + 1) }
        case .split(let k):
            let cut = min(max(k, 0), count)
            return [0..<cut, cut..<count]
        case .seeded(let seed):
            var generator = SeededGenerator(seed: seed)
            var ranges: [Range<Int>] = []
            var start = 0
            while start < count {
                // Mostly tiny chunks (header bytes split everywhere), sometimes large ones.
                let size = generator.next() % 4 == 0 ? Int(generator.next() % UInt64(max(1, maxChunk))) + 1 : Int(generator.next() % 7) + 1
                let end = min(count, start + size)
                ranges.append(start..<end)
                start = end
            }
            return ranges
        }
    }

    /// Replays `input` into a fresh session cut as `chunking` says and returns the session's transcript.
    ///
    /// - Parameters:
    ///   - input: the bytes.
    ///   - chunking: how to cut them.
    ///   - makeSession: creates the parser (or connection) under test.
    ///   - feed: feeds one chunk; the pointer is a slice of a padded buffer, valid only during the call.
    ///   - transcript: reads what the session produced, after the last chunk.
    public static func replay<Session, Transcript>(
        _ input: [UInt8], chunking: Chunking,
        makeSession: () -> Session,
        feed: (inout Session, UnsafeRawBufferPointer) -> Void,
        transcript: (inout Session) -> Transcript
    ) -> Transcript {
        var session = makeSession()
        for range in ranges(for: chunking, count: input.count) {
            let padded = junkBefore + input[range] + junkAfter
            padded.withUnsafeBytes { raw in
                feed(&session, UnsafeRawBufferPointer(rebasing: raw[junkBefore.count..<(junkBefore.count + range.count)]))
            }
        }
        return transcript(&session)
    }

    /// Replays `input` in every chunking and returns those whose transcript differs from `expected`.
    ///
    /// - Parameter chunkings: the chunkings to try; by default every one from ``chunkings(forCount:seeds:)``.
    public static func verify<Session, Transcript: Equatable>(
        _ input: [UInt8], expecting expected: Transcript, seeds: [UInt64] = defaultSeeds, chunkings: [Chunking]? = nil,
        makeSession: () -> Session,
        feed: (inout Session, UnsafeRawBufferPointer) -> Void,
        transcript: (inout Session) -> Transcript
    ) -> [Mismatch<Transcript>] {
        (chunkings ?? Self.chunkings(forCount: input.count, seeds: seeds)).compactMap { chunking in
            let actual = replay(input, chunking: chunking, makeSession: makeSession, feed: feed, transcript: transcript)
            return actual == expected ? nil : Mismatch(chunking: chunking, expected: expected, actual: actual)
        }
    }

    /// Concatenates several (input, expected transcript) cases in seeded shuffled orders and checks, for each
    /// order and a few chunkings, that one session yields the concatenation of the expected transcripts.
    ///
    /// Only meaningful for cases that leave the session ready for more input (no close, no failure).
    public static func verifyConcatenated<Session, Element: Equatable>(
        _ cases: [(input: [UInt8], expected: [Element])], seeds: [UInt64] = defaultSeeds,
        makeSession: () -> Session,
        feed: (inout Session, UnsafeRawBufferPointer) -> Void,
        transcript: (inout Session) -> [Element]
    ) -> [Mismatch<[Element]>] {
        var mismatches: [Mismatch<[Element]>] = []
        for seed in seeds {
            var generator = SeededGenerator(seed: seed)
            let order = cases.shuffled(using: &generator)
            let input = order.flatMap(\.input)
            let expected = order.flatMap(\.expected)
            for chunking in [Chunking.whole, .oneBytePerCall, .seeded(seed)] {
                let actual = replay(input, chunking: chunking, makeSession: makeSession, feed: feed, transcript: transcript)
                if actual != expected { mismatches.append(Mismatch(chunking: chunking, expected: expected, actual: actual)) }
            }
        }
        return mismatches
    }
}

/// A small deterministic generator (SplitMix64) so that "random" tests replay identically from their seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; equal seeds give equal sequences.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }
}
