import HeraldTestSupport
import HeraldWebSocket
import Testing

/// RFC 6455 §8.1: text must be valid UTF-8, and we fail at the first byte that proves it is not.
@Suite("UTF-8 validation (RFC 6455 §8.1)")
struct UTF8Tests {
    /// Valid sequences at every length boundary of Unicode Table 3-7.
    static let valid: [(String, String)] = [
        ("empty", ""),
        ("ASCII", "48 65 6C 6C 6F"),
        ("first 2-byte U+0080", "C2 80"),
        ("last 2-byte U+07FF", "DF BF"),
        ("first 3-byte U+0800", "E0 A0 80"),
        ("last before surrogates U+D7FF", "ED 9F BF"),
        ("first after surrogates U+E000", "EE 80 80"),
        ("U+FFFD replacement character", "EF BF BD"),
        ("last 3-byte U+FFFF", "EF BF BF"),
        ("first 4-byte U+10000", "F0 90 80 80"),
        ("last code point U+10FFFF", "F4 8F BF BF"),
        ("κόσμε (Autobahn 6.2.1)", "CE BA E1 BD B9 CF 83 CE BC CE B5"),
        ("long ASCII run then emoji", "41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 F0 9F 98 80"),
    ]

    /// Invalid sequences and the index of the first byte that proves it.
    static let invalid: [(String, String, Int)] = [
        ("stray continuation 80", "80", 0),
        ("stray continuation BF after ASCII", "41 BF", 1),
        ("overlong 2-byte C0 80", "C0 80", 0),
        ("overlong 2-byte C1 BF", "C1 BF", 0),
        ("overlong 3-byte E0 80 80", "E0 80 80", 1),
        ("overlong 3-byte E0 9F BF", "E0 9F BF", 1),
        ("overlong 4-byte F0 80 80 80", "F0 80 80 80", 1),
        ("overlong 4-byte F0 8F BF BF", "F0 8F BF BF", 1),
        ("high surrogate U+D800 ED A0 80", "ED A0 80", 1),
        ("low surrogate U+DFFF ED BF BF", "ED BF BF", 1),
        ("above U+10FFFF F4 90 80 80", "F4 90 80 80", 1),
        ("F5 lead byte", "F5 80 80 80", 0),
        ("FE byte", "FE", 0),
        ("FF byte", "FF", 0),
        ("2-byte lead then ASCII", "C2 41", 1),
        ("3-byte lead, one continuation, then ASCII", "E1 80 41", 2),
        ("4-byte lead, two continuations, then ASCII", "F1 80 80 41", 3),
        ("Autobahn 6.3.1 κόσμε-edited with a surrogate", "CE BA E1 BD B9 CF 83 CE BC CE B5 ED A0 80 65 64 69 74 65 64", 12),
    ]

    /// Sequences cut off at the end of the message: only the message end proves them invalid.
    static let truncated: [(String, String)] = [
        ("2-byte lead alone", "C2"),
        ("3-byte lead, one continuation", "E1 80"),
        ("4-byte lead, three of four bytes", "F1 80 80"),
    ]

    @Test("Unicode Table 3-7: valid sequences pass", arguments: valid)
    func validSequences(name: String, bytes: String) {
        #expect(UTF8Validator.isValid(hex(bytes)), "\(name)")
        expectConnection(clientFrame(.text, hex(bytes)), events: [.text(String(decoding: hex(bytes), as: UTF8.self))])
    }

    @Test("Unicode Table 3-7: each invalid class fails at its first offending byte", arguments: invalid)
    func invalidSequences(name: String, bytes: String, failIndex: Int) {
        var validator = UTF8Validator()
        #expect(hex(bytes).withUnsafeBytes { validator.validate($0) } == failIndex, "\(name)")
        // The same byte fails whichever chunk it arrives in.
        for split in 0...hex(bytes).count {
            var chunked = UTF8Validator()
            let data = hex(bytes)
            let first = data.withUnsafeBytes { chunked.validate(UnsafeRawBufferPointer(rebasing: $0[0..<split])) }
            let second = first == nil ? data.withUnsafeBytes { chunked.validate(UnsafeRawBufferPointer(rebasing: $0[split...])) }.map { $0 + split } : first
            #expect(second == failIndex, "\(name), split at \(split)")
        }
    }

    @Test("RFC 6455 §8.1: invalid UTF-8 in a text message fails with 1007 at the offending byte (Autobahn 6.3.x)", arguments: invalid)
    func invalidTextFailsEarly(name: String, bytes: String, failIndex: Int) {
        let payload = hex(bytes)
        // Announce a longer frame so that only early detection (not the frame end) can explain the failure offset.
        let frame = clientFrame(.text, payload + Array("trailing".utf8))
        expectConnection(frame, events: [failure(.invalidPayload)], writes: ServerClose.invalidPayload, state: .closed)
        var session = ConnectionSession(role: .server)
        for byte in frame { session.feed([byte]) }
        // Header: 2 bytes + 4 key bytes (payload < 126); the failure arrives with the offending byte.
        #expect(session.eventOffsets == [6 + failIndex + 1], "\(name)")
    }

    @Test("RFC 6455 §8.1: a text message ending mid-sequence fails with 1007 at its end", arguments: truncated)
    func truncatedAtMessageEnd(name: String, bytes: String) {
        #expect(!UTF8Validator.isValid(hex(bytes)), "\(name)")
        expectConnection(clientFrame(.text, hex(bytes)), events: [failure(.invalidPayload)], writes: ServerClose.invalidPayload, state: .closed)
    }

    @Test("RFC 6455 §8.1: a character split across fragments is valid (Autobahn 6.2.3-6.2.4)")
    func case6_2_characterSplitAcrossFragments() {
        // F0 9F 98 80 (😀) cut after each byte, across continuation frames.
        let bytes = hex("F0 9F 98 80")
        for cut in 1..<4 {
            let input = clientFrame(.text, Array(bytes[0..<cut]), fin: false) + clientFrame(.continuation, Array(bytes[cut...]))
            expectConnection(input, events: [.text("😀")])
        }
    }

    @Test("RFC 6455 §8.1: invalid UTF-8 in a middle fragment fails before the message ends (Autobahn 6.4.1)")
    func case6_4_1_failFastAcrossFragments() {
        // κόσμε, then F4 90 80 80 (above U+10FFFF) in its own non-final fragment, then "edited".
        let first = clientFrame(.text, hex("CE BA E1 BD B9 CF 83 CE BC CE B5"), fin: false)
        let second = clientFrame(.continuation, hex("F4 90 80 80"), fin: false)
        let third = clientFrame(.continuation, "edited")
        expectConnection(first + second + third, events: [failure(.invalidPayload)], writes: ServerClose.invalidPayload, state: .closed)
        var session = ConnectionSession(role: .server)
        for byte in first + second { session.feed([byte]) }
        // F4 is acceptable, 90 is not: failure at the second payload byte of the second fragment (6-byte header).
        #expect(session.eventOffsets == [first.count + 6 + 2])
    }

    @Test("RFC 6455 §8.1: a fragment ending mid-character is fine until the final fragment ends (Autobahn 6.4.2)")
    func case6_4_2_truncatedAtFinalFragment() {
        let input = clientFrame(.text, hex("CE BA"), fin: false) + clientFrame(.continuation, hex("E1 BD"))
        expectConnection(input, events: [failure(.invalidPayload)], writes: ServerClose.invalidPayload, state: .closed)
    }

    @Test("RFC 6455 §5.6: binary messages are not UTF-8 validated")
    func binaryIsNotValidated() {
        expectConnection(clientFrame(.binary, hex("FF FE C0 80")), events: [.binary(hex("FF FE C0 80"))])
    }
}
