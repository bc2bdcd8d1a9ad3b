import COpenSSL

/// Converts ECDSA signatures between OpenSSL's DER `SEQUENCE { r INTEGER, s INTEGER }` and JWS's fixed-size
/// r || s (RFC 7518 §3.4), each half left-padded with zeros to 32 bytes. A JWT carrying DER is refused by APNs
/// and by browsers' push services, so the conversion is exact, not best effort.
enum ECDSASignatureEncoding {
    /// The 64-byte r || s of a DER signature, or nil when the DER is malformed or a value exceeds 32 bytes.
    static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        let result: [UInt8]? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { return nil }
            defer { ECDSA_SIG_free(signature) }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            guard let r, let s else { return nil }
            var output = [UInt8](repeating: 0, count: 2 * P256Curve.scalarSize)
            let written = output.withUnsafeMutableBufferPointer { out in
                (BN_bn2binpad(r, out.baseAddress, Int32(P256Curve.scalarSize)),
                 BN_bn2binpad(s, out.baseAddress! + P256Curve.scalarSize, Int32(P256Curve.scalarSize)))
            }
            guard written.0 == Int32(P256Curve.scalarSize), written.1 == Int32(P256Curve.scalarSize) else { return nil }
            return output
        }
        if result == nil { ERR_clear_error() }
        return result
    }

    /// The DER form of a 64-byte r || s, or nil when `raw` is not 64 bytes.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * P256Curve.scalarSize, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw, Int32(P256Curve.scalarSize), nil)
        let s = Array(raw[P256Curve.scalarSize...]).withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(P256Curve.scalarSize), nil) }
        // ECDSA_SIG_set0 takes ownership of both numbers only when it succeeds.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var output = [UInt8](repeating: 0, count: Int(length))
        let written = output.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? output : nil
    }
}
