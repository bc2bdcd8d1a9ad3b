import COpenSSL

/// AEAD_AES_128_GCM (RFC 5116 §5.1) with a 12-byte nonce and a 16-byte tag appended to the ciphertext: the
/// record cipher of the aes128gcm content coding (RFC 8188 §2).
enum AES128GCM {
    static let keySize = 16
    static let nonceSize = 12
    static let tagSize = 16

    /// Encrypts `plaintext` (not empty) and returns ciphertext || tag.
    static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == keySize, nonce.count == nonceSize, !plaintext.isEmpty, plaintext.count < Int(Int32.max) else {
            throw CryptoError(.internalFailure, "AES-128-GCM called with a bad key, nonce or length")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL(.internalFailure, "EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: plaintext.count + tagSize)
        var written: Int32 = 0
        var finalWritten: Int32 = 0
        let ok = EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1
            && output.withUnsafeMutableBufferPointer { out in
                EVP_EncryptUpdate(context, out.baseAddress, &written, plaintext, Int32(plaintext.count)) == 1
                    && Int(written) == plaintext.count
                    && EVP_EncryptFinal_ex(context, out.baseAddress! + Int(written), &finalWritten) == 1
                    && finalWritten == 0
                    && EVP_CIPHER_CTX_ctrl(context, copenssl_evp_ctrl_gcm_get_tag(), Int32(tagSize), out.baseAddress! + plaintext.count) == 1
            }
        guard ok else { throw CryptoError.openSSL(.internalFailure, "AES-128-GCM encryption failed") }
        return output
    }

    /// Decrypts ciphertext || tag; throws `.authenticationFailed` when the tag does not verify (wrong key or an
    /// altered record), in which case no plaintext is returned at all.
    static func open(_ sealed: ArraySlice<UInt8>, key: [UInt8], nonce: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == keySize, nonce.count == nonceSize, sealed.count > tagSize, sealed.count < Int(Int32.max) else {
            throw CryptoError(.malformedBody, "an AES-128-GCM record must be longer than its \(tagSize)-byte tag")
        }
        let ciphertext = Array(sealed.dropLast(tagSize))
        var tag = Array(sealed.suffix(tagSize))
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL(.internalFailure, "EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: ciphertext.count)
        var written: Int32 = 0
        var finalWritten: Int32 = 0
        let ready = EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1
            && EVP_DecryptUpdate(context, &output, &written, ciphertext, Int32(ciphertext.count)) == 1
            && Int(written) == ciphertext.count
            && EVP_CIPHER_CTX_ctrl(context, copenssl_evp_ctrl_gcm_set_tag(), Int32(tagSize), &tag) == 1
        guard ready else { throw CryptoError.openSSL(.internalFailure, "AES-128-GCM decryption could not start") }
        let authentic = output.withUnsafeMutableBufferPointer { out in
            EVP_DecryptFinal_ex(context, out.baseAddress! + Int(written), &finalWritten) == 1
        }
        guard authentic else {
            // Wipe the unauthenticated plaintext: nothing from a forged record may escape.
            for index in output.indices { output[index] = 0 }
            throw CryptoError.openSSL(.authenticationFailed, "the record's AES-GCM tag does not verify (wrong key or auth secret, or altered data)")
        }
        return output
    }
}
