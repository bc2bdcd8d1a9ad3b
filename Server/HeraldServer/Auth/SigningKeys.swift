import HeraldCrypto
/// The keys tokens are signed and verified with: one that signs, and the ones still accepted, so a secret can be
/// rotated without logging everyone out.
///
/// A configured secret (`--secret-file`, `HERALD_SECRET_FILE`, `--secret`) may hold several lines: the first signs,
/// every line verifies. Rotating is two steps, each rolled out to every node: add the new secret as a second line
/// (every node then accepts tokens signed with it), then move it to the first line (new tokens use it); once the old
/// secret's tokens have expired, delete its line. Tokens name their key (`kid` in the header: a short HMAC of the
/// key, which reveals nothing of it); a token without `kid`, as minted before keys had ids, is tried with every key.
public struct SigningKeys: Sendable, Equatable {
    /// Signs new tokens.
    public let signing: [UInt8]
    /// Every accepted key, the signing one first.
    public let accepted: [[UInt8]]
    /// ``keyID(of:)`` of each of ``accepted``, computed once (every /sync upgrade looks its token's key up here).
    private let ids: [String]

    /// One key that both signs and verifies (the secret generated into the database, or a one-line secret).
    public init(single key: [UInt8]) {
        signing = key
        accepted = [key]
        ids = [Self.keyID(of: key)]
    }

    /// The id tokens signed now carry.
    public var signingID: String { ids[0] }

    /// The non-empty lines of a configured secret (`\r\n` or `\n`); nil when there is none.
    public init?(lines text: String) {
        let keys = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map { Array($0.utf8) }.filter { !$0.isEmpty }
        guard let first = keys.first else { return nil }
        signing = first
        accepted = keys
        ids = keys.map(Self.keyID(of:))
    }

    /// The key id a token signed with `key` carries: 8 hex digits of HMAC-SHA256(key, "herald key id").
    public static func keyID(of key: [UInt8]) -> String {
        let mac = HMACSHA256.mac(key: key, message: Array("herald key id".utf8))
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: mac.prefix(4).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }, as: UTF8.self)
    }

    /// The keys to try for a token whose header names `kid` (nil: every key).
    func candidates(for kid: String?) -> [[UInt8]] {
        guard let kid else { return accepted }
        return zip(accepted, ids).filter { $0.1 == kid }.map(\.0)
    }
}
