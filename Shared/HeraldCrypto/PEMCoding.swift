import COpenSSL

/// Private keys in and out of PEM text, the form Apple's `.p8` files, Google service-account JSON and
/// `openssl genpkey` use. Reading a file is the caller's job; this only parses the text it was given.
enum PEMCoding {
    /// Parses the first private key in `pem`: PKCS#8 (`BEGIN PRIVATE KEY`) or a traditional per-algorithm
    /// form (`BEGIN EC PRIVATE KEY`, SEC1; `BEGIN RSA PRIVATE KEY`, PKCS#1). Returns an owned `EVP_PKEY`.
    ///
    /// Encrypted keys are refused rather than prompted for: OpenSSL's default password callback would read the
    /// terminal, which a server must never do.
    static func readPrivateKey(_ pem: String) throws(CryptoError) -> EVPKeyBox {
        let bytes = Array(pem.utf8)
        guard !bytes.isEmpty, bytes.count < Int(Int32.max) else { throw CryptoError(.invalidKey, "empty or oversized PEM text") }
        let key: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // A password callback that supplies no password: an encrypted key fails to decode instead of prompting.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let key else { throw CryptoError.openSSL(.invalidKey, "no unencrypted private key in the PEM text") }
        return EVPKeyBox(key)
    }

    /// The key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`), the form `readPrivateKey` and other tools accept.
    static func writePrivateKey(_ key: EVPKeyBox) throws(CryptoError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.openSSL(.internalFailure, "BIO_new failed") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key.pointer, nil, nil, 0, nil, nil) == 1 else {
            throw CryptoError.openSSL(.internalFailure, "PEM_write_bio_PrivateKey failed")
        }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { break }
            text += chunk.prefix(Int(count))
        }
        return String(decoding: text, as: UTF8.self)
    }
}
