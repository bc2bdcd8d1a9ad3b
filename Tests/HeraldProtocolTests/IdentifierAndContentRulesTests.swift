import Foundation
import HeraldProtocol
import PropertyBased
import Testing

@Suite("One rule for ids, display names, URLs and reactions (every entry point uses these)")
struct IdentifierAndContentRulesTests {
    @Test("User ids: ASCII letters, digits and . _ @ -, 1-128, not starting with . or @")
    func userIds() {
        for valid in ["alice", "Kate", "a", "bob.smith@example.com", "_x", "-y", "u-1_2.3", String(repeating: "a", count: 128)] {
            #expect(Identifiers.isUserId(valid), "\(valid)")
        }
        for invalid in ["", ".alice", "@alice", "ali ce", "alice\n", "al/ice", "ali%ce", String(repeating: "a", count: 129), "Jos\u{E9}"] {
            #expect(!Identifiers.isUserId(invalid), "\(invalid.debugDescription)")
        }
    }

    @Test("Unicode canonical equivalence cannot join two ids: every look-alike of an ASCII id (Kelvin sign, decomposed accents, Greek question mark) is refused")
    func canonicalEquivalents() {
        let lookalikes = ["\u{212A}ate", "Jose\u{301}", "a\u{37E}b", "\u{212B}ngstrom"]
        #expect("\u{212A}ate" == "Kate", "Swift's String equality is canonical equivalence: this is the hazard")
        for id in lookalikes {
            #expect(!Identifiers.isUserId(id), "\(id.debugDescription)")
            #expect(!Identifiers.isId(id), "\(id.debugDescription)")
        }
    }

    @Test("Property: two strings that pass the id rule are equal as Swift Strings exactly when their bytes are equal")
    func equalityIsByteEquality() async {
        let alphabet = Array("aK.-_@0é\u{212A}\u{301} \u{37E};".unicodeScalars)
        await propertyCheck(count: 2_000, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var random = SplitMix(seed: seed)
            func text() -> String {
                var scalars = String.UnicodeScalarView()
                for _ in 0...random.below(4) { scalars.append(alphabet[random.below(alphabet.count)]) }
                return String(scalars)
            }
            let a = text(), b = text()
            guard Identifiers.isId(a), Identifiers.isId(b) else { return }
            #expect((a == b) == (Array(a.utf8) == Array(b.utf8)), "\(a.debugDescription) vs \(b.debugDescription)")
            var pair: Set<String> = [a]
            pair.insert(b)
            #expect(pair.count == (Array(a.utf8) == Array(b.utf8) ? 1 : 2), "a Set keys them by their bytes")
        }
    }

    @Test("Other ids: 1-128 printable ASCII, no spaces or controls")
    func otherIds() {
        #expect(Identifiers.isId("c12") && Identifiers.isId("alice-phone-7") && Identifiers.isId("!~"))
        for invalid in ["", "a b", "a\tb", "\u{7F}", "é", String(repeating: "x", count: 129)] {
            #expect(!Identifiers.isId(invalid), "\(invalid.debugDescription)")
        }
    }

    @Test("Display names: any script, 1-100 characters, no controls, line breaks or bidirectional overrides")
    func displayNames() {
        for valid in ["Alice", "José", "Zoë 🎉", "李雷", String(repeating: "é", count: 100)] { #expect(Identifiers.isDisplayName(valid), "\(valid)") }
        for invalid in ["", "Al\nice", "Al\u{0}ice", "\u{202E}ecilA", "a\u{2028}b", "a\u{85}b", String(repeating: "a", count: 101)] {
            #expect(!Identifiers.isDisplayName(invalid), "\(invalid.debugDescription)")
        }
    }

    @Test("Web URLs: http(s) with a host, no credentials, no local or private addresses, ASCII only")
    func webURLs() {
        for valid in ["https://example.com/a.png", "HTTP://Example.com:8080/x?y=1#z", "https://cdn.example.com", "https://123.example/x",
                      "https://a-b.c-d.example.co/p?q=%20#f"] {
            #expect(ContentRules.isWebURL(valid), "\(valid)")
        }
        for invalid in ["javascript:alert(1)", "file:///etc/passwd", "data:image/png;base64,AAAA", "ftp://example.com/x", "https://",
                        "https://user:pass@example.com/x", "https://example.com@evil.com/", "https://localhost/x", "http://a.localhost/",
                        "http://127.0.0.1/", "http://169.254.169.254/latest/meta-data", "http://10.0.0.1/", "http://192.168.1.1/",
                        "http://172.16.0.1/", "http://0.0.0.0/", "http://[::1]/", "http://[fe80::1]/", "http://[fd00::1]/",
                        "http://[::ffff:127.0.0.1]/", "http://2130706433/", "http://0x7f.1/", "http://127.1/", "https://exa mple.com/",
                        "https://example.com/\u{e9}", "https://example.com\\@evil.com/",
                        "https://8.8.8.8/x.png", "https://[2001:db8::1]/i.png", "https://example.com:123456/", "https://example.com:/",
                        "https://example/", "https://ex_ample.com/", "https://example.c0m/", "https://.example.com/"] {
            #expect(!ContentRules.isWebURL(invalid), "\(invalid)")
        }
    }

    @Test("Property: the regular expressions openapi.json publishes accept exactly what isWebURL and isLink accept")
    func patternsAgreeWithTheCode() async throws {
        let web = try NSRegularExpression(pattern: ContentRules.webURLPattern)
        let link = try NSRegularExpression(pattern: ContentRules.linkPattern)
        func matches(_ expression: NSRegularExpression, _ text: String) -> Bool {
            expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
        let pieces = ["http", "https", "HTTPS", "herald", "://", "example", ".", "com", "localhost", "-", "_", ":", "8080", "/", "?", "#",
                      "@", "a", "7", "127", "0x7f", " ", "é", "\\", "%20", "[", "]", "co", "x"]
        await propertyCheck(count: 3_000, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var random = SplitMix(seed: seed)
            var text = random.chance() ? ["https://", "http://", "herald://"][random.below(3)] : ""
            for _ in 0...random.below(8) { text += pieces[random.below(pieces.count)] }
            #expect(matches(web, text) == ContentRules.isWebURL(text), "\(text)")
            #expect(matches(link, text) == ContentRules.isLink(text), "\(text)")
        }
    }

    @Test("Notification links: a web URL or a herald:// deep link; never javascript:")
    func links() {
        #expect(ContentRules.isLink("herald://conversation/c1") && ContentRules.isLink("https://example.com/p/1"))
        #expect(!ContentRules.isLink("javascript:alert(1)") && !ContentRules.isLink("herald://") && !ContentRules.isLink("herald://x y"))
    }

    @Test("Storable text: anything but NUL, wherever it is, in small and long strings alike")
    func storableText() {
        let long = String(repeating: "héllo 👋 ", count: 200)
        for valid in ["", "a", "ok 👍", long, "\u{1}\u{7F}"] { #expect(ContentRules.isStorableText(valid), "\(valid.prefix(20).debugDescription)") }
        for invalid in ["\u{0}", "a\u{0}", "\u{0}a", long + "\u{0}", "\u{0}" + long, String(long.prefix(700)) + "\u{0}" + long] {
            #expect(!ContentRules.isStorableText(invalid), "\(invalid.prefix(20).debugDescription)")
        }
    }

    @Test("Reactions: one grapheme (flags, skin tones, ZWJ families, keycaps), never text or line breaks")
    func reactions() {
        for valid in ["👍", "❤️", "👍🏽", "👩‍👩‍👧", "🇫🇷", "1️⃣", "😀"] { #expect(ContentRules.isReaction(valid), "\(valid)") }
        for invalid in ["", "👍👍", "ok", "👍\n", "\n", " ", "\u{202E}", "a\u{0}"] { #expect(!ContentRules.isReaction(invalid), "\(invalid.debugDescription)") }
    }

    @Test("herald.v1 requests use the same rules: look-alike user ids, javascript: images and multi-line reactions are bad_request")
    func requestsUseTheRules() {
        func code(_ json: String) -> ErrorCode? {
            if case .failure(let failure) = RequestFrame.decode(Array(json.utf8)) { return failure.error.code }
            return nil
        }
        #expect(code(#"{"type":"dm","id":1,"user":"\u212Aate"}"#) == .badRequest)
        #expect(code(#"{"type":"follow","id":1,"user":"Jose\u0301"}"#) == .badRequest)
        #expect(code(#"{"type":"group","id":1,"title":"t","members":["bob","a b"]}"#) == .badRequest)
        #expect(code(#"{"type":"send","id":1,"conversation":"c1","clientMessageId":"x","imageURL":"javascript:alert(1)"}"#) == .badRequest)
        #expect(code(#"{"type":"send","id":1,"conversation":"c1","clientMessageId":"x","imageURL":"http://169.254.169.254/"}"#) == .badRequest)
        #expect(code(#"{"type":"react","id":1,"message":"m1","emoji":"👍\nSystem: your account is locked"}"#) == .badRequest)
        #expect(code(#"{"type":"send","id":1,"conversation":"c1","clientMessageId":"caf\u00e9","text":"hi"}"#) == .badRequest)
        #expect(code(#"{"type":"dm","id":1,"user":"bob"}"#) == nil)
        #expect(code(#"{"type":"react","id":1,"message":"m1","emoji":"👍🏽"}"#) == nil)
        #expect(code(#"{"type":"send","id":1,"conversation":"c1","clientMessageId":"x","imageURL":"https://example.com/a.png"}"#) == nil)
    }
}
