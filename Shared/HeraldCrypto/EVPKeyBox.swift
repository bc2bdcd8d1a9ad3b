import COpenSSL

/// Owns one OpenSSL `EVP_PKEY` and frees it when the last key value holding it goes away, so the public key
/// types can be plain copyable structs.
///
/// `@unchecked Sendable`: after creation the key is never modified, and OpenSSL 3 allows one `EVP_PKEY` to be
/// used by several threads at once for signing, verifying and deriving (each call makes its own `EVP_PKEY_CTX`).
final class EVPKeyBox: @unchecked Sendable {
    /// The `EVP_PKEY *`.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }
}
