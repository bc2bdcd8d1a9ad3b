/// Message encryption for Web Push (RFC 8291) in the aes128gcm content coding (RFC 8188): what the server does to
/// a payload before POSTing it to a push service, and what a user agent (our CLI client) does on receipt.
public enum WebPushEncryption {
    /// The record size the server sends: RFC 8291 §4 limits a push message to 4096 bytes of body per record.
    public static let defaultRecordSize: UInt32 = 4096
    /// Size of a subscription's `auth` secret (RFC 8291 §3.2).
    public static let authSecretSize = 16
    /// Size of the aes128gcm header in a Web Push body: salt 16, rs 4, idlen 1, keyid 65.
    public static let headerSize = ContentCodingHeader.saltSize + 4 + 1 + P256Curve.uncompressedPointSize
    /// What one record adds to its content: the 16-byte AES-GCM tag and the 1-byte padding delimiter.
    public static let recordOverhead = AES128GCM.tagSize + 1

    /// The largest plaintext that fits in the one record `encrypt` writes at `recordSize`.
    public static func maximumPlaintextSize(recordSize: UInt32 = defaultRecordSize) -> Int {
        max(0, Int(recordSize) - recordOverhead)
    }

    /// Encrypts `plaintext` for one push subscription and returns the whole request body: the aes128gcm header
    /// (salt | rs | idlen = 65 | the sender's public key) followed by a single record, AES-128-GCM of
    /// plaintext || 0x02 || `padding` zero bytes, with its tag (RFC 8291 §4, RFC 8188 §2).
    ///
    /// - Parameters:
    ///   - receiverPublicKey: the subscription's `p256dh`, 65 uncompressed bytes on P-256.
    ///   - authSecret: the subscription's `auth`, 16 bytes.
    ///   - senderKey: the application server's ECDH key; nil (the norm) makes a fresh one, since RFC 8291 §3.1
    ///     requires a new key for every message. Pass one only to reproduce test vectors.
    ///   - salt: 16 bytes; nil (the norm) draws fresh random ones, as RFC 8188 §2.1 requires for each message.
    ///   - recordSize: the header's `rs`; the record written is at most this long.
    ///   - padding: extra zero bytes after the delimiter, to hide the plaintext's length.
    /// - Throws: `.invalidKey` for a bad `p256dh`; `.invalidArgument` for a wrong-size auth secret or salt, a record
    ///   size below 18 or negative padding; `.plaintextTooLarge` when plaintext + padding exceed `recordSize - 17`.
    public static func encrypt(
        _ plaintext: [UInt8], receiverPublicKey: [UInt8], authSecret: [UInt8], senderKey: P256PrivateKey? = nil,
        salt: [UInt8]? = nil, recordSize: UInt32 = defaultRecordSize, padding: Int = 0
    ) throws(CryptoError) -> [UInt8] {
        guard authSecret.count == authSecretSize else {
            throw CryptoError(.invalidArgument, "a Web Push auth secret is \(authSecretSize) bytes (got \(authSecret.count))")
        }
        if let salt, salt.count != ContentCodingHeader.saltSize {
            throw CryptoError(.invalidArgument, "an aes128gcm salt is \(ContentCodingHeader.saltSize) bytes (got \(salt.count))")
        }
        guard recordSize >= ContentCodingHeader.minimumRecordSize else {
            throw CryptoError(.invalidArgument, "the record size \(recordSize) is below the minimum of \(ContentCodingHeader.minimumRecordSize)")
        }
        guard padding >= 0 else { throw CryptoError(.invalidArgument, "padding cannot be negative") }
        let capacity = maximumPlaintextSize(recordSize: recordSize)
        guard plaintext.count <= capacity, padding <= capacity - plaintext.count else {
            throw CryptoError(.plaintextTooLarge, "\(plaintext.count) bytes of plaintext and \(padding) of padding do not fit one \(recordSize)-byte record (at most \(capacity))")
        }
        guard P256Curve.isUncompressedPoint(receiverPublicKey) else {
            throw CryptoError(.invalidKey, "the subscription's p256dh is not a 65-byte uncompressed P-256 point")
        }
        let sender: P256PrivateKey
        if let senderKey { sender = senderKey } else { sender = try P256PrivateKey.generate() }
        let header = ContentCodingHeader(salt: salt ?? SecureRandom.bytes(ContentCodingHeader.saltSize), recordSize: recordSize, keyID: sender.publicKey)
        let keys = WebPushKeyDerivation(
            ecdhSecret: try sender.sharedSecret(with: receiverPublicKey), authSecret: authSecret,
            receiverPublicKey: receiverPublicKey, senderPublicKey: sender.publicKey, salt: header.salt)
        // The last (here, only) record's delimiter is 0x02 (RFC 8188 §2).
        let record = plaintext + [0x02] + [UInt8](repeating: 0, count: padding)
        return header.bytes + (try AES128GCM.seal(record, key: keys.contentEncryptionKey, nonce: keys.nonce(forRecord: 0)))
    }
}
