/// The header that starts an aes128gcm body (RFC 8188 §2.1): salt (16) | rs (uint32, big-endian) | idlen (1) |
/// keyid (idlen). In Web Push (RFC 8291 §4) the keyid is the sender's 65-byte public key.
struct ContentCodingHeader {
    static let saltSize = 16
    /// RFC 8188 §2.1: "Values [of rs] smaller than 18 are invalid" (a 16-byte tag plus a delimiter, plus one byte).
    static let minimumRecordSize: UInt32 = 18

    let salt: [UInt8]
    let recordSize: UInt32
    let keyID: [UInt8]

    /// How many bytes the header takes on the wire.
    var encodedSize: Int { Self.saltSize + 4 + 1 + keyID.count }

    /// The header's bytes.
    var bytes: [UInt8] {
        salt + [UInt8(truncatingIfNeeded: recordSize >> 24), UInt8(truncatingIfNeeded: recordSize >> 16),
                UInt8(truncatingIfNeeded: recordSize >> 8), UInt8(truncatingIfNeeded: recordSize), UInt8(keyID.count)] + keyID
    }

    init(salt: [UInt8], recordSize: UInt32, keyID: [UInt8]) {
        self.salt = salt
        self.recordSize = recordSize
        self.keyID = keyID
    }

    /// Reads the header at the start of `body`; throws `.malformedBody` when it is truncated or its record size
    /// is invalid.
    init(parsing body: [UInt8]) throws(CryptoError) {
        let fixed = Self.saltSize + 4 + 1
        guard body.count >= fixed else { throw CryptoError(.malformedBody, "the body is shorter than an aes128gcm header (\(body.count) bytes)") }
        let idLength = Int(body[fixed - 1])
        guard body.count >= fixed + idLength else { throw CryptoError(.malformedBody, "the aes128gcm header's keyid is truncated") }
        salt = Array(body[0..<Self.saltSize])
        recordSize = body[Self.saltSize..<(Self.saltSize + 4)].reduce(0) { $0 << 8 | UInt32($1) }
        keyID = Array(body[fixed..<(fixed + idLength)])
        guard recordSize >= Self.minimumRecordSize else {
            throw CryptoError(.malformedBody, "the aes128gcm record size \(recordSize) is below the minimum of \(Self.minimumRecordSize)")
        }
    }
}
