import HeraldBytes

/// Base64url without padding (RFC 4648 §5): the alphabet of JWT segments (RFC 7515 §2) and of Web Push
/// subscription keys and VAPID keys (RFC 8292 §3.2), so the server and the client share one strict codec
/// (``HeraldBytes/Base64Codec/url``).
public enum Base64URL {
    /// Encodes bytes without `=` padding.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Base64Codec.url.encode(bytes)
    }

    /// Decodes unpadded base64url; nil on any character outside the alphabet, on padding, or on an
    /// impossible length (one leftover character) or non-zero trailing bits (a non-canonical encoding).
    public static func decode<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        Base64Codec.url.decode(utf8: text.utf8)
    }

    /// Decodes the UTF-8 bytes of unpadded base64url text; see ``decode(_:)``.
    public static func decode<UTF8Bytes: Collection<UInt8>>(utf8 text: UTF8Bytes) -> [UInt8]? {
        Base64Codec.url.decode(utf8: text)
    }
}
