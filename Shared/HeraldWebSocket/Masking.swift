/// A 32-bit masking key (RFC 6455 §5.3), stored as its four wire bytes.
public struct MaskKey: Sendable, Hashable {
    /// The key bytes in wire order.
    public var bytes: (UInt8, UInt8, UInt8, UInt8)

    /// Creates a key from its four wire bytes.
    public init(_ bytes: (UInt8, UInt8, UInt8, UInt8)) { self.bytes = bytes }

    /// A fresh key from the system's cryptographically secure generator (getrandom on Linux).
    ///
    /// §5.3: the masking key MUST be derived from a strong source of entropy, unpredictable per frame.
    public static func random() -> MaskKey {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt32
        return MaskKey((UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
                        UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)))
    }

    /// Key byte `index % 4`.
    @inlinable
    public func byte(at index: Int) -> UInt8 {
        switch index & 3 {
        case 0: bytes.0
        case 1: bytes.1
        case 2: bytes.2
        default: bytes.3
        }
    }

    public static func == (lhs: MaskKey, rhs: MaskKey) -> Bool {
        lhs.bytes.0 == rhs.bytes.0 && lhs.bytes.1 == rhs.bytes.1 && lhs.bytes.2 == rhs.bytes.2 && lhs.bytes.3 == rhs.bytes.3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.0)
        hasher.combine(bytes.1)
        hasher.combine(bytes.2)
        hasher.combine(bytes.3)
    }
}

/// XOR masking (RFC 6455 §5.3): `transformed[i] = original[i] ^ key[(phase + i) % 4]`; the same call masks and unmasks.
public enum Masking {
    /// Masks or unmasks `buffer` in place.
    ///
    /// - Parameters:
    ///   - buffer: the bytes to transform.
    ///   - key: the frame's masking key.
    ///   - phase: the offset within the frame's payload of `buffer`'s first byte, so that a payload delivered in
    ///     chunks can be unmasked chunk by chunk.
    public static func apply(_ key: MaskKey, to buffer: UnsafeMutableRawBufferPointer, phase: Int = 0) {
        let count = buffer.count
        guard count > 0, let base = buffer.baseAddress else { return }
        // Rotate the key so that index 0 of `buffer` lines up with key byte `phase`, then XOR 8 bytes at a time.
        let k0 = key.byte(at: phase), k1 = key.byte(at: phase + 1), k2 = key.byte(at: phase + 2), k3 = key.byte(at: phase + 3)
        var index = 0
        if count >= 8 {
            let wide = wideKey(k0, k1, k2, k3)
            while index + 8 <= count {
                let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                base.storeBytes(of: word ^ wide, toByteOffset: index, as: UInt64.self)
                index += 8
            }
        }
        while index < count {
            let keyByte: UInt8
            switch index & 3 {
            case 0: keyByte = k0
            case 1: keyByte = k1
            case 2: keyByte = k2
            default: keyByte = k3
            }
            buffer[index] ^= keyByte
            index += 1
        }
    }

    /// Copies `count` bytes from `source` to `destination` (not overlapping) and masks or unmasks them on the way,
    /// as ``apply(_:to:phase:)`` with phase 0 does in place: one pass over the bytes where a copy and then an
    /// in-place pass made two (an echoed or whole message is unmasked this way, out of the read buffer).
    ///
    /// - Returns: whether every byte written is ASCII (below 0x80). ASCII is well-formed UTF-8, so a text payload
    ///   for which this is true needs no further UTF-8 check (§8.1); the answer costs one OR per word of the copy,
    ///   where a validator's fast path read every word a second time.
    @discardableResult
    public static func copy(_ key: MaskKey, from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, count: Int) -> Bool {
        let wide = wideKey(key.bytes.0, key.bytes.1, key.bytes.2, key.bytes.3)
        // The OR of every word written: a high bit anywhere in the payload leaves one here.
        var seen: UInt64 = 0
        var index = 0
        if count >= 32 {
            // Two 16-byte vectors a step (SSE2 on x86-64, NEON on arm64): a 64-byte chat message is unmasked in two.
            let wideVector = SIMD2<UInt64>(repeating: wide)
            var seenVector = SIMD2<UInt64>(repeating: 0)
            while index + 32 <= count {
                let first = source.loadUnaligned(fromByteOffset: index, as: SIMD2<UInt64>.self) ^ wideVector
                let second = source.loadUnaligned(fromByteOffset: index + 16, as: SIMD2<UInt64>.self) ^ wideVector
                destination.storeBytes(of: first, toByteOffset: index, as: SIMD2<UInt64>.self)
                destination.storeBytes(of: second, toByteOffset: index + 16, as: SIMD2<UInt64>.self)
                seenVector |= first | second
                index += 32
            }
            seen = seenVector[0] | seenVector[1]
        }
        while index + 16 <= count {
            let first = source.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ wide
            let second = source.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self) ^ wide
            destination.storeBytes(of: first, toByteOffset: index, as: UInt64.self)
            destination.storeBytes(of: second, toByteOffset: index + 8, as: UInt64.self)
            seen |= first | second
            index += 16
        }
        if index + 8 <= count {
            let word = source.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ wide
            destination.storeBytes(of: word, toByteOffset: index, as: UInt64.self)
            seen |= word
            index += 8
        }
        while index < count {
            let byte = source.load(fromByteOffset: index, as: UInt8.self) ^ key.byte(at: index)
            destination.storeBytes(of: byte, toByteOffset: index, as: UInt8.self)
            seen |= UInt64(byte)
            index += 1
        }
        return seen & 0x8080_8080_8080_8080 == 0
    }

    /// The key pattern k0 k1 k2 k3 k0 k1 k2 k3 as it lies in memory, to XOR eight bytes at a time. Built with shifts:
    /// reading it back through withUnsafeBytes(of:) of a tuple was miscompiled under -O (the XOR left bytes unchanged
    /// in release builds).
    private static func wideKey(_ k0: UInt8, _ k1: UInt8, _ k2: UInt8, _ k3: UInt8) -> UInt64 {
        let quad = UInt64(k0) | UInt64(k1) << 8 | UInt64(k2) << 16 | UInt64(k3) << 24
        return UInt64(littleEndian: quad | quad << 32)
    }

    /// Masks or unmasks `buffer[range]` in place; see ``apply(_:to:phase:)``.
    public static func apply(_ key: MaskKey, to buffer: inout [UInt8], range: Range<Int>, phase: Int = 0) {
        guard range.lowerBound >= 0, range.upperBound <= buffer.count, !range.isEmpty else { return }
        buffer.withUnsafeMutableBytes { raw in
            apply(key, to: UnsafeMutableRawBufferPointer(rebasing: raw[range]), phase: phase)
        }
    }
}
