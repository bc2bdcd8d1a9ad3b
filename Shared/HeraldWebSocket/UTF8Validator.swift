/// An incremental UTF-8 validator that fails at the first byte that cannot start or continue a well-formed
/// sequence (Unicode 15, Table 3-7), so a text message fails with 1007 as early as detectable (RFC 6455 §8.1),
/// including across fragments and chunk boundaries.
///
/// It rejects overlong forms (C0, C1, E0 80-9F, F0 80-8F), UTF-16 surrogates (ED A0-BF), code points above
/// U+10FFFF (F4 90-BF, F5-FF) and stray or missing continuation bytes.
public struct UTF8Validator: Sendable, Hashable {
    /// Continuation bytes still expected for the current sequence.
    private var remaining: UInt8 = 0
    /// Allowed range of the next continuation byte; only the first continuation byte is ever narrower than 80-BF.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// A validator at a character boundary.
    public init() {}

    /// Whether the bytes seen so far end on a character boundary (a message may only end here, §8.1).
    public var isAtCharacterBoundary: Bool { remaining == 0 }

    /// Validates more bytes.
    ///
    /// - Returns: `nil` if every byte is acceptable so far, else the index within `bytes` of the first offending
    ///   byte. After a failure the validator must not be reused.
    public mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return nil }
        var index = 0
        while index < count {
            if remaining == 0 {
                // Fast path: skip ASCII eight bytes at a time.
                while index + 8 <= count, base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                }
                guard index < count else { return nil }
                let byte = bytes[index]
                switch byte {
                case 0x00...0x7F: break
                case 0xC2...0xDF: start(1, 0x80, 0xBF)
                case 0xE0: start(2, 0xA0, 0xBF)  // E0 80-9F would be overlong
                case 0xE1...0xEC, 0xEE, 0xEF: start(2, 0x80, 0xBF)
                case 0xED: start(2, 0x80, 0x9F)  // ED A0-BF encodes surrogates D800-DFFF
                case 0xF0: start(3, 0x90, 0xBF)  // F0 80-8F would be overlong
                case 0xF1...0xF3: start(3, 0x80, 0xBF)
                case 0xF4: start(3, 0x80, 0x8F)  // F4 90+ is above U+10FFFF
                default: return index  // 80-BF stray continuation, C0/C1 overlong, F5-FF out of range
                }
            } else {
                let byte = bytes[index]
                guard byte >= lower, byte <= upper else { return index }
                remaining -= 1
                lower = 0x80
                upper = 0xBF
            }
            index += 1
        }
        return nil
    }

    /// Validates a whole byte array as one complete string.
    public static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { isValid($0) }
    }

    /// Validates a whole byte buffer as one complete string.
    public static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) == nil && validator.isAtCharacterBoundary
    }

    private mutating func start(_ continuationCount: UInt8, _ low: UInt8, _ high: UInt8) {
        remaining = continuationCount
        lower = low
        upper = high
    }
}
