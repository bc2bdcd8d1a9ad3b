import COpenSSL

/// Signs and verifies with SHA-256 through OpenSSL's one-shot `EVP_DigestSign`/`EVP_DigestVerify`, for whatever
/// algorithm the key is (ECDSA for P-256 keys; RSASSA-PKCS1-v1_5, OpenSSL's RSA default, for RSA keys).
enum DigestSignature {
    /// The signature in OpenSSL's native encoding: DER for ECDSA, the raw modulus-sized block for RSA.
    static func sign(_ message: [UInt8], key: EVPKeyBox) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.openSSL(.internalFailure, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else {
            throw CryptoError.openSSL(.invalidKey, "EVP_DigestSignInit refused the key")
        }
        var length = 0
        // A one-byte stand-in for an empty message, so the pointer passed is never nil; the length stays 0.
        let input = message.isEmpty ? [0] : message
        let signature: [UInt8]? = input.withUnsafeBufferPointer { buffer in
            // First call: the maximum length; second: the signature and its actual length (ECDSA's DER varies).
            guard EVP_DigestSign(context, nil, &length, buffer.baseAddress, message.count) == 1, length > 0 else { return nil }
            var output = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &output, &length, buffer.baseAddress, message.count) == 1 else { return nil }
            return Array(output.prefix(length))
        }
        guard let signature else { throw CryptoError.openSSL(.internalFailure, "EVP_DigestSign failed") }
        return signature
    }

    /// Whether `signature` (OpenSSL's native encoding) is a valid SHA-256 signature of `message` under `key`.
    static func verify(_ signature: [UInt8], message: [UInt8], key: EVPKeyBox) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let input = message.isEmpty ? [0] : message
        let valid = !signature.isEmpty && EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1
            && input.withUnsafeBufferPointer { buffer in
                EVP_DigestVerify(context, signature, signature.count, buffer.baseAddress, message.count) == 1
            }
        // A refused signature leaves entries in the queue; TLS on this thread must not find them later.
        if !valid { ERR_clear_error() }
        return valid
    }
}
