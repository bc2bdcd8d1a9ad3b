/// The user agent's side of RFC 8291: our CLI client receives push messages as a browser would.
extension WebPushEncryption {
    /// Decrypts a Web Push body addressed to `receiverKey` (whose public key is the subscription's `p256dh`) with
    /// the subscription's 16-byte `authSecret`, and returns the plaintext.
    ///
    /// Accepts any number of records (RFC 8188 §2), though RFC 8291 senders write one: every record but the last
    /// is exactly `rs` bytes and ends its content with the delimiter 0x01, the last with 0x02, each delimiter
    /// followed only by zero padding.
    ///
    /// - Throws: `.malformedBody` for a truncated header, a keyid that is not a 65-byte point, short or empty
    ///   records, bad delimiters or a body cut at a record boundary; `.authenticationFailed` when a record does not
    ///   verify (wrong key or auth secret, or altered bytes); `.invalidArgument` for a wrong-size auth secret.
    ///   Never traps, whatever the bytes.
    public static func decrypt(_ body: [UInt8], receiverKey: P256PrivateKey, authSecret: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard authSecret.count == authSecretSize else {
            throw CryptoError(.invalidArgument, "a Web Push auth secret is \(authSecretSize) bytes (got \(authSecret.count))")
        }
        let header = try ContentCodingHeader(parsing: body)
        // RFC 8291 §4: the keyid is the sender's public key, 65 bytes.
        guard header.keyID.count == P256Curve.uncompressedPointSize, P256Curve.isUncompressedPoint(header.keyID) else {
            throw CryptoError(.malformedBody, "the aes128gcm keyid is not the sender's 65-byte P-256 public key")
        }
        let keys = WebPushKeyDerivation(
            ecdhSecret: try receiverKey.sharedSecret(with: header.keyID), authSecret: authSecret,
            receiverPublicKey: receiverKey.publicKey, senderPublicKey: header.keyID, salt: header.salt)

        var plaintext: [UInt8] = []
        var offset = header.encodedSize
        var sequence: UInt64 = 0
        guard offset < body.count else { throw CryptoError(.malformedBody, "the body has a header but no record") }
        while offset < body.count {
            let end = body.count - offset > Int(header.recordSize) ? offset + Int(header.recordSize) : body.count
            let isLast = end == body.count
            guard end - offset > AES128GCM.tagSize else {
                throw CryptoError(.malformedBody, "record \(sequence) is \(end - offset) bytes, too short to hold a tag and a delimiter")
            }
            let content = try AES128GCM.open(body[offset..<end], key: keys.contentEncryptionKey, nonce: keys.nonce(forRecord: sequence))
            plaintext += try unpad(content, isLast: isLast, sequence: sequence)
            offset = end
            sequence += 1
        }
        return plaintext
    }

    /// A record's content without its padding: the data before the last non-zero byte, which must be the delimiter
    /// 0x02 in the last record and 0x01 in any other (RFC 8188 §2).
    static func unpad(_ content: [UInt8], isLast: Bool, sequence: UInt64) throws(CryptoError) -> ArraySlice<UInt8> {
        guard let delimiterIndex = content.lastIndex(where: { $0 != 0 }) else {
            throw CryptoError(.malformedBody, "record \(sequence) has no padding delimiter")
        }
        switch (content[delimiterIndex], isLast) {
        case (0x02, true), (0x01, false):
            return content[..<delimiterIndex]
        case (0x01, true):
            throw CryptoError(.malformedBody, "the body ends at record \(sequence), which says more records follow (truncated)")
        case (0x02, false):
            throw CryptoError(.malformedBody, "record \(sequence) says it is the last, but more data follows")
        default:
            throw CryptoError(.malformedBody, "record \(sequence) has an invalid padding delimiter \(content[delimiterIndex])")
        }
    }
}
