import HeraldCrypto
import Testing

/// RFC 8292: the VAPID Authorization header, its audience rules, and verification by PyJWT and py_vapid.
@Suite("VAPID (RFC 8292)")
struct VAPIDTests {
    @Test("RFC 8292 §2: aud is the endpoint's origin; default ports dropped, others kept", arguments: [
        ("https://fcm.googleapis.com/fcm/send/abc:def", "https://fcm.googleapis.com"),
        ("https://updates.push.services.mozilla.com/wpush/v2/gAAAA?x=1#f", "https://updates.push.services.mozilla.com"),
        ("HTTPS://Push.Example.NET:443/p", "https://push.example.net"),
        ("https://push.example.net:8443/p", "https://push.example.net:8443"),
        ("https://push.example.net:0443/p", "https://push.example.net"),
        ("http://localhost:80/p", "http://localhost"),
        ("http://localhost:8080", "http://localhost:8080"),
        ("https://user:pw@push.example.net/p", "https://push.example.net"),
        ("https://[::1]:8443/push", "https://[::1]:8443"),
        ("https://push.example.net:/p", "https://push.example.net"),
    ])
    func audience(endpoint: String, origin: String) {
        #expect(VAPID.audience(of: endpoint) == origin)
    }

    @Test("Endpoints without an http(s) origin have no audience", arguments: [
        "", "push.example.net/p", "ftp://push.example.net/p", "https:///p", "https://push.example.net:99999/p",
        "https://push.example.net:12a/p", "https://push example.net/p", "https://[::1/p", "https://[::1]x/p", "mailto:a@b",
    ])
    func noAudience(endpoint: String) {
        #expect(VAPID.audience(of: endpoint) == nil)
    }

    @Test("RFC 8292 §3: 'vapid t=<JWT>, k=<key>'; the JWT verifies in PyJWT with aud, exp, sub, and in py_vapid")
    func header() throws {
        let key = try P256PrivateKey.generate()
        let value = try VAPID.authorization(
            endpoint: "https://push.example.net:8443/push/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV", subject: "mailto:push@herald.example",
            expiresAt: 1_763_843_200, key: key)
        let parts = value.split(separator: " ")
        try #require(parts.count == 3)
        #expect(parts[0] == "vapid")
        #expect(parts[1].hasPrefix("t=") && parts[1].hasSuffix(","))
        #expect(parts[2] == "k=" + Base64URL.encode(key.publicKey))
        let token = String(parts[1].dropFirst(2).dropLast())
        let header = String(decoding: try b64(String(token.split(separator: ".")[0])), as: UTF8.self)
        #expect(header == #"{"alg":"ES256","typ":"JWT"}"#)

        let result = try runPython("""
            import sys, json, jwt, py_vapid
            from cryptography.hazmat.primitives.asymmetric import ec
            token, k = sys.argv[1], sys.argv[2]
            raw = py_vapid.b64urldecode(k.encode())
            public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
            claims = jwt.decode(token, public, algorithms=["ES256"], audience="https://push.example.net:8443", options={"verify_exp": False})
            signed, signature = token.rsplit(".", 1)
            assert py_vapid.Vapid02.from_raw_public(k.encode()).verify_token(validation_token=signed.encode(), verification_token=signature)
            print(json.dumps(claims, sort_keys=True))
            """, [token, String(parts[2].dropFirst(2))])
        #expect(result.status == 0)
        #expect(result.text == #"{"aud": "https://push.example.net:8443", "exp": 1763843200, "sub": "mailto:push@herald.example"}"#)
    }

    @Test("Refused: endpoints without an origin, subjects that are not mailto:/https:, non-positive expiry")
    func refusals() throws {
        let key = try P256PrivateKey.generate()
        let endpoint = "https://push.example.net/p"
        for (endpoint, subject, expiry) in [
            ("ftp://x/p", "mailto:a@b", Int64(1)), (endpoint, "a@b", 1), (endpoint, "mailto:", 1), (endpoint, "http://herald.example", 1),
            (endpoint, "mailto:a@b", 0),
        ] {
            #expect(cryptoErrorKind { () throws(CryptoError) in try VAPID.authorization(endpoint: endpoint, subject: subject, expiresAt: expiry, key: key) } == .invalidArgument)
        }
        #expect(cryptoErrorKind { () throws(CryptoError) in try VAPID.authorization(endpoint: endpoint, subject: "https://herald.example", expiresAt: 1, key: key) } == nil)
    }
}
