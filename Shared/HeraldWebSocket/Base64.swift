import HeraldBytes

/// Standard base64 (RFC 4648 §4, with padding), as used by `Sec-WebSocket-Key` and `Sec-WebSocket-Accept`
/// (``HeraldBytes/Base64Codec/standard``).
public enum Base64 {
    /// Encodes bytes with `=` padding.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Base64Codec.standard.encode(bytes)
    }

    /// Decodes padded standard base64; returns `nil` for anything else (wrong length, bad characters or padding,
    /// non-zero bits after the last character).
    public static func decode(_ text: String) -> [UInt8]? {
        Base64Codec.standard.decode(utf8: text.utf8)
    }
}
