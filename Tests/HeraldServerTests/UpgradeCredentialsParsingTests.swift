import Foundation
import HeraldCrypto
@testable import HeraldServer
import Testing

/// How a /sync upgrade's credentials are read: the Bearer header (RFC 6750 §2.1) and the token's three segments and
/// header (RFC 7515 §7.1), by bytes. Each case here is one the byte-level reading must agree on with the JSON and
/// String rules it replaces.
@Suite("Upgrade credentials: Bearer header and token segments")
struct UpgradeCredentialsParsingTests {
    static let secret = Array("herald-test-secret".utf8)
    static let claims = #"{"exp":1763803600,"iat":1763800000,"name":"Alice","sub":"alice"}"#
    static let now: Int64 = 1_763_800_001

    /// A token with `header` as its JOSE header, signed with `key`.
    static func token(header: String, key: [UInt8] = secret) -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(HMACSHA256.mac(key: key, message: Array(input.utf8)))
    }

    @Test("RFC 6750 §2.1: the scheme is case-insensitive, spaces and tabs around the token are dropped, an empty token is none")
    func bearer() {
        #expect(BearerToken.from(authorization: "Bearer abc.def") == "abc.def")
        #expect(BearerToken.from(authorization: "bearer   abc.def  ") == "abc.def")
        #expect(BearerToken.from(authorization: "BEARER \t abc\t") == "abc")
        #expect(BearerToken.from(authorization: "Bearer a b") == "a b", "inner spaces are the token's (and fail its check)")
        for none in ["Bearer", "Bearer    ", "Bearer \t ", "Basic abc", "", "abc"] {
            #expect(BearerToken.from(authorization: none) == nil, "\(none)")
        }
        #expect(BearerToken.from(authorization: nil) == nil)
    }

    @Test("RFC 7515 §7.1: the header this server writes, the same in another key order or spacing, and with a kid, all verify")
    func headersThatVerify() {
        for header in [#"{"alg":"HS256","typ":"JWT"}"#, #"{"typ":"JWT","alg":"HS256"}"#, #"{ "alg" : "HS256" }"#] {
            guard case .success(let claims) = JSONWebToken.verify(Self.token(header: header), secret: Self.secret, now: Self.now) else {
                Issue.record("refused \(header)"); continue
            }
            #expect(claims.sub == "alice")
        }
        let keys = SigningKeys(single: Self.secret)
        let keyed = Self.token(header: #"{"alg":"HS256","kid":"\#(keys.signingID)","typ":"JWT"}"#)
        #expect((try? JSONWebToken.verify(keyed, keys: keys, now: Self.now).get())?.sub == "alice")
        // A kid naming no accepted key leaves no key to try.
        let unknownKid = Self.token(header: #"{"alg":"HS256","kid":"00000000","typ":"JWT"}"#)
        #expect(JSONWebToken.verify(unknownKid, keys: keys, now: Self.now) == .failure(.badSignature))
        // A kid with an escaped quote is read by the JSON decoder: it names the key "0\"", which is not accepted.
        let escaped = Self.token(header: #"{"alg":"HS256","kid":"0\"","typ":"JWT"}"#)
        #expect(JSONWebToken.verify(escaped, keys: keys, now: Self.now) == .failure(.badSignature))
    }

    @Test("RFC 7515 §7.1: any other algorithm, a header that is not JSON, and other than three segments are refused")
    func refused() {
        #expect(JSONWebToken.verify(Self.token(header: #"{"alg":"none","typ":"JWT"}"#), secret: Self.secret, now: Self.now)
            == .failure(.unsupportedAlgorithm("none")))
        #expect(JSONWebToken.verify(Self.token(header: #"{"alg":"HS256","typ":"JWT""#), secret: Self.secret, now: Self.now)
            == .failure(.malformed("header is not JSON with 'alg'")))
        let good = Self.token(header: JSONWebToken.header)
        for malformed in ["a.b", good + ".x", "..", ".", good.replacingOccurrences(of: ".", with: "")] {
            guard case .failure(.malformed) = JSONWebToken.verify(malformed, secret: Self.secret, now: Self.now) else {
                Issue.record("not refused as malformed: \(malformed)"); continue
            }
        }
        #expect(JSONWebToken.verify(good + "=", secret: Self.secret, now: Self.now) == .failure(.malformed("segment is not base64url")))
        #expect(JSONWebToken.verify(good, secret: Self.secret, now: Self.now).map(\.sub) == .success("alice"))
    }
}
