import COpenSSL
import Foundation
import FuzzSupport
import HeraldAuth
import HeraldProtocol

/// Access tokens (``JSONWebToken/verify(_:secret:now:)``, ``JSONWebToken/sign(_:secret:)``), the check in front of
/// every /sync upgrade and every API token.
///
/// Input layout: byte 0's low two bits pick a mode, the rest is read by that mode:
/// - 0, raw: the rest, as UTF-8, is the compact token.
/// - 1, signed JSON: a length byte, that many bytes of header JSON, the rest claims JSON; the harness base64url-encodes
///   both and signs them with the server's secret (its own HMAC, straight from OpenSSL), so the fuzzer's JSON reaches
///   the claim checks. Byte 0 bit 2 sets the unused low bits of the claims segment's last character (a non-canonical
///   spelling of the same bytes), bit 3 appends `=` padding.
/// - 2, signed segments: a length byte, that many bytes of header segment text, the rest claims segment text, signed
///   as they are (any alphabet, any spelling).
/// - 3, claims: sub and name (a length byte each, then UTF-8), iat and exp (byte 0 bit 2/3: a raw 64-bit value,
///   else now plus a signed 16-bit offset) and a secret of 1-64 bytes; signed with ``JSONWebToken/sign(_:secret:)``.
///
/// Properties:
/// - verify never traps, whatever the token;
/// - a token that verifies has a sub passing ``Identifiers/isUserId(_:)``, a name passing
///   ``Identifiers/isDisplayName(_:)``, exp > now and iat ≤ now + skew; its three segments are canonical unpadded
///   base64url (so no second spelling of a signed token verifies); flipping a byte of its signature (the first, the
///   last, two chosen by the claims) gives `badSignature`; re-signing its claims gives a token that verifies to the
///   same claims;
/// - in mode 3 the outcome is exactly the one the rules predict (success with the very claims signed, or the first
///   rule broken), a flipped signature byte or a flipped secret byte gives `badSignature`, and a changed claims
///   segment never verifies.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzToken(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(fuzzInput(data, size))
    let config = reader.byte()
    switch config & 3 {
    case 0:
        check(String(decoding: reader.rest(), as: UTF8.self), secret: serverSecret)
    case 1:
        let header = reader.bytes(Int(reader.byte()))
        var claims = base64url(reader.rest())
        if config & 4 != 0, let last = claims.popLast() { claims.append(nonCanonical(last, segmentLength: claims.count + 1)) }
        if config & 8 != 0 { claims += "=" }
        check(signed(base64url(header) + "." + claims, secret: serverSecret), secret: serverSecret)
    case 2:
        let header = String(decoding: reader.bytes(Int(reader.byte())), as: UTF8.self)
        let claims = String(decoding: reader.rest(), as: UTF8.self)
        check(signed(header + "." + claims, secret: serverSecret), secret: serverSecret)
    default:
        roundTrip(&reader, config: config)
    }
    return 0
}

/// The server's clock for every verification (a fixed time, so inputs replay).
private let now: Int64 = 1_760_000_000
private let serverSecret = Array("fuzz-secret-0123456789abcdef0123".utf8)

/// Verifies `token` and checks what any verified token must satisfy.
private func check(_ token: String, secret: [UInt8]) {
    guard case .success(let claims) = JSONWebToken.verify(token, secret: secret, now: now) else { return }
    checkVerified(token, claims: claims, secret: secret)
}

private func checkVerified(_ token: String, claims: TokenClaims, secret: [UInt8]) {
    fuzzRequire(Identifiers.isUserId(claims.sub), "verified token \(token) has sub \(claims.sub.debugDescription)")
    fuzzRequire(Identifiers.isDisplayName(claims.name), "verified token \(token) has name \(claims.name.debugDescription)")
    fuzzRequire(claims.exp > now, "verified token \(token) expired at \(claims.exp), now \(now)")
    fuzzRequire(claims.iat <= now + JSONWebToken.clockSkewSeconds, "verified token \(token) issued at \(claims.iat), now \(now)")

    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    fuzzRequire(parts.count == 3, "verified token \(token) has \(parts.count) segments")
    for part in parts {
        let decoded = base64urlDecode(part)
        fuzzRequire(decoded.map(base64url) == String(part), "verified token \(token) has a non-canonical segment \(part)")
    }
    if let signature = base64urlDecode(parts[2]) {
        fuzzRequire(signature.count == 32, "verified token \(token) has a \(signature.count)-byte signature")
        // The first and last byte and two in between (every byte would cost 32 verifications per verified input).
        for index in Set([0, signature.count - 1, Int(claims.exp & 0x1F), Int(claims.iat & 0x1F)]) where signature.indices.contains(index) {
            var flipped = signature
            flipped[index] ^= 0x01
            let forged = parts[0] + "." + parts[1] + "." + base64url(flipped)
            let result = JSONWebToken.verify(forged, secret: secret, now: now)
            fuzzRequire(result == .failure(.badSignature), "signature byte \(index) flipped gives \(result) for \(token)")
        }
    }
    let resigned = JSONWebToken.sign(claims, secret: secret)
    let again = JSONWebToken.verify(resigned, secret: secret, now: now)
    fuzzRequire(again == .success(claims), "re-signed claims \(claims) verify as \(again)")
}

/// Claims from the input, signed by the server's own `sign`: the outcome must be exactly what the rules say.
private func roundTrip(_ reader: inout FuzzReader, config: UInt8) {
    let sub = String(decoding: reader.bytes(Int(reader.byte())), as: UTF8.self)
    let name = String(decoding: reader.bytes(Int(reader.byte())), as: UTF8.self)
    func time(raw: Bool) -> Int64 {
        raw ? Int64(bitPattern: reader.uint64()) : now + Int64(Int16(truncatingIfNeeded: reader.uint16()))
    }
    let iat = time(raw: config & 4 != 0)
    let exp = time(raw: config & 8 != 0)
    var secret = reader.bytes(1 + Int(reader.byte() % 64))
    if secret.isEmpty { secret = serverSecret }  // the server never has an empty secret (SigningSecret)
    let claims = TokenClaims(sub: sub, name: name, iat: iat, exp: exp)

    let token = JSONWebToken.sign(claims, secret: secret)
    let result = JSONWebToken.verify(token, secret: secret, now: now)
    let expected: String
    if !Identifiers.isUserId(sub) { expected = "malformed sub" }
    else if !Identifiers.isDisplayName(name) { expected = "malformed name" }
    else if exp <= now { expected = "expired" }
    else if iat > now + JSONWebToken.clockSkewSeconds { expected = "issuedInTheFuture" }
    else { expected = "success" }
    let outcome: String
    switch result {
    case .success(let verified):
        fuzzRequire(verified == claims, "signed \(claims), verified \(verified)")
        checkVerified(token, claims: verified, secret: secret)
        outcome = "success"
    case .failure(.malformed(let why)) where why.hasPrefix("sub must be"): outcome = "malformed sub"
    case .failure(.malformed(let why)) where why.hasPrefix("name must be"): outcome = "malformed name"
    case .failure(.expired): outcome = "expired"
    case .failure(.issuedInTheFuture): outcome = "issuedInTheFuture"
    case .failure(let error): outcome = "\(error)"
    }
    fuzzRequire(outcome == expected, "claims \(claims) signed with \(secret): expected \(expected), verify says \(result)")

    // Whatever the claims, a token signed with another secret or with a changed signature or claims segment fails.
    var otherSecret = secret
    otherSecret[Int(iat & 0x3F) % otherSecret.count] ^= 0x80
    let withOther = JSONWebToken.verify(token, secret: otherSecret, now: now)
    fuzzRequire(withOther == .failure(.badSignature), "token for \(claims) verifies with another secret as \(withOther)")
    let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 3, var signature = base64urlDecode(parts[2]), !signature.isEmpty else {
        return fuzzRequire(false, "sign made \(token)")
    }
    signature[Int(exp & 0x1F) % signature.count] ^= 0x01
    let flipped = JSONWebToken.verify(parts[0] + "." + parts[1] + "." + base64url(signature), secret: secret, now: now)
    fuzzRequire(flipped == .failure(.badSignature), "token for \(claims) with a flipped signature byte gives \(flipped)")
    if var payload = base64urlDecode(parts[1]), !payload.isEmpty {
        payload[Int(iat & 0xFFFF) % payload.count] ^= 0x20
        let changed = JSONWebToken.verify(parts[0] + "." + base64url(payload) + "." + parts[2], secret: secret, now: now)
        if case .success = changed { fuzzRequire(false, "token for \(claims) with changed claims \(payload) verifies") }
    }
}

// MARK: - The harness's own base64url and HMAC (independent of the code under test)

private let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

/// Unpadded base64url (RFC 4648 §5).
private func base64url(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    var index = 0
    while index < bytes.count {
        let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
        let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << UInt32(16 - 8 * $1.offset) }
        for sextet in 0...chunk.count { out.append(alphabet[Int(value >> UInt32(18 - 6 * sextet) & 0x3F)]) }
        index += 3
    }
    return String(decoding: out, as: UTF8.self)
}

/// Lenient unpadded base64url decoding (ignores stray low bits); nil for characters outside the alphabet or a
/// length of 4n+1.
private func base64urlDecode<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
    let values = text.utf8.map { byte in alphabet.firstIndex(of: byte) }
    guard !values.contains(nil), values.count % 4 != 1 else { return nil }
    var out: [UInt8] = []
    var buffer: UInt32 = 0, bits = 0
    for case let value? in values {
        buffer = buffer << 6 | UInt32(value)
        bits += 6
        if bits >= 8 {
            bits -= 8
            out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
        }
    }
    return out
}

/// The last character of a segment with its unused low bits set: the same bytes, spelled differently.
private func nonCanonical(_ last: Character, segmentLength: Int) -> Character {
    guard let value = last.asciiValue.flatMap({ alphabet.firstIndex(of: $0) }) else { return last }
    let unusedBits = [0, 0, 4, 2][segmentLength % 4]  // 2 characters carry 1 byte, 3 carry 2
    return Character(Unicode.Scalar(alphabet[value | ((1 << unusedBits) - 1)]))
}

/// `signingInput` plus `.` plus the unpadded base64url HMAC-SHA256 of it, via OpenSSL directly.
private func signed(_ signingInput: String, secret: [UInt8]) -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let message = Array(signingInput.utf8)
    _ = HMAC(EVP_sha256(), secret, Int32(secret.count), message, message.count, &digest, &length)
    return signingInput + "." + base64url(digest)
}
