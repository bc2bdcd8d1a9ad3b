import Foundation
@testable import HeraldProtocol
import HeraldRules
import PropertyBased
import Testing

/// The fast request reader must give exactly JSONDecoder's answer: the same frame, or the same failure.
@Suite("herald.v1 requests: the fast reader agrees with JSONDecoder")
struct WireRequestScannerTests {
    private func agree(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let fast = RequestFrame.decode(bytes)
        let reference = RequestFrame.decodeWithFoundation(bytes)
        #expect(fast == reference, "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    @Test("Fixtures: escapes, surrogate pairs, unknown keys of every kind, nulls, whitespace, numbers at the edges")
    func fixtures() {
        let cases = [
            #"{"type":"send","id":1,"conversation":"c1","clientMessageId":"k","text":"a\"b\\c\/d\n\u00e9\ud83d\ude00\u0000"}"#,
            #" { "type" : "sync" , "id" : 9223372036854775807 , "after" : null } "#,
            #"{"type":"sync","id":-9223372036854775808}"#,
            #"{"type":"sync","id":9223372036854775808}"#,
            #"{"type":"sync","id":1.0}"#, #"{"type":"sync","id":1e2}"#, #"{"type":"sync","id":-0}"#, #"{"type":"sync","id":01}"#,
            #"{"type":"sync","id":2,"extra":{"a":[1,2.5e-3,true,false,null,{"b":"c"}],"d":-0.0}}"#,
            #"{"type":"sync","id":2,"id":3}"#, #"{"type":"sync","id":2,"x":1,"x":2}"#,
            #"{"type":"scene","id":3,"scene":"teleport"}"#, #"{"type":"send","id":4,"conversation":"c","clientMessageId":"k","kind":"video"}"#,
            #"{"type":"ack","id":5,"messages":["m1",null]}"#, #"{"type":"ack","id":5,"messages":[]}"#, #"{"type":"ack","id":5,"messages":null}"#,
            #"{"type":"scene","id":6,"scene":"thread","conversation":"c1","foreground":1}"#,
            #"{"type":"sync","id":7,"text":"\ud800"}"#, #"{"type":"sync","id":7,"text":"\udc00\ud800"}"#, #"{"type":"sync","id":7,"text":"\x"}"#,
            "{\"type\":\"sync\",\"id\":7,\"text\":\"tab\traw\"}", #"{"t\u0079pe":"sync","\u0069d":8}"#,
            #"{"type":"sync"}"#, #"{"id":1}"#, #"{}"#, #"[]"#, #""sync""#, "", " ", #"{"type":"sync","id":1}x"#, #"{"type":"sync","id":1,}"#,
            #"{"type":"sync","id":1"#, #"{"type":"sync" "id":1}"#, #"{"type":null,"id":1}"#, #"{"type":"sync","id":null}"#,
            String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
            #"{"type":"sync","id":1,"deep":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
        ]
        for json in cases { agree(Array(json.utf8)) }
        #expect(WireRequestScanner.scan(Array(cases[0].utf8))?.text == "a\"b\\c/d\né😀\u{0}")
        #expect(WireRequestScanner.scan(Array(cases[1].utf8))?.id == Int.max)
        #expect(WireRequestScanner.scan(Array(cases[8].utf8)) != nil, "unknown keys are skipped")
        #expect(WireRequestScanner.scan(Array(cases[4].utf8)) == nil, "1.0 is left to JSONDecoder")
        agree([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])  // invalid UTF-8 in a key
    }

    @Test("A quote, backslash, control byte, DEL or non-ASCII byte at every place of the 8-byte words a string is scanned in: both readers agree")
    func specialBytesInWords() {
        // The string scan steps over 8 bytes at a time while none is special; each special byte must stop it wherever
        // it falls, including as a word's first and last byte and in the bytes after the last whole word.
        let specials: [[UInt8]] = [[0x22], [0x5C, 0x6E], [0x5C], [0x00], [0x1F], [0x20], [0x7F], [0xC3, 0xA9], [0xFF], [0xC3], [0xED, 0xA0, 0x80]]
        for special in specials {
            for position in 0..<20 {
                let text = Array(repeating: UInt8(ascii: "a"), count: position) + special + Array(repeating: UInt8(ascii: "b"), count: 19 - position)
                let bytes = Array(#"{"type":"send","id":1,"conversation":"c1","clientMessageId":"k","text":""#.utf8) + text + Array(#""}"#.utf8)
                agree(bytes)
            }
        }
        let plain = Array(#"{"type":"send","id":1,"conversation":"c1","clientMessageId":"k","text":"#.utf8)
            + Array("\"0123456789abcdefghijklmnopq\"}".utf8)
        #expect(WireRequestScanner.scan(plain)?.text == "0123456789abcdefghijklmnopq")
    }

    @Test("Random requests, encoded by the client, then cut, flipped, padded or extended: both readers agree")
    func randomRequests() async {
        await propertyCheck(count: 500, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var random = SplitMix(seed: seed)
            let bytes = random.request().encode()
            agree(bytes)
            // The fast path really takes what clients send (else this suite would only test JSONDecoder).
            #expect(WireRequestScanner.scan(bytes) != nil, "\(String(decoding: bytes, as: UTF8.self))")
            var mutated = bytes
            switch random.below(5) {
            case 0: mutated = Array(mutated.prefix(random.below(mutated.count + 1)))
            case 1 where !mutated.isEmpty: mutated[random.below(mutated.count)] = UInt8(truncatingIfNeeded: random.next())
            case 2: mutated.insert(contentsOf: Array(" \n\t\r".utf8).prefix(1 + random.below(4)), at: random.below(mutated.count + 1))
            case 3 where mutated.count > 1: mutated.insert(contentsOf: Array(#""zz":[1,{"q":null}],"#.utf8), at: 1)
            default: mutated = Array(String(decoding: mutated, as: UTF8.self).replacingOccurrences(of: "\"", with: "\\\"").utf8)
            }
            agree(mutated)
        }
    }
}

/// Random requests.
private extension SplitMix {
    mutating func text() -> String {
        let pool: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\u{01}", "\u{7F}", "é", "\u{301}", "😀", "€", "\u{2028}"]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<(1 + below(10)) { scalars.append(pool[below(pool.count)]) }
        return String(scalars)
    }

    mutating func request() -> RequestFrame {
        let request: ClientRequest
        switch below(10) {
        case 0: request = .sync(after: below(2) == 0 ? nil : Int64(below(1_000_000)))
        case 1: request = .dm(user: text())
        case 2: request = .group(title: text(), members: (0..<(1 + below(4))).map { _ in text() })
        case 3: request = .history(conversation: text(), before: below(2) == 0 ? nil : text(), limit: 1 + below(100))
        case 4: request = .send(conversation: text(), clientMessageId: text(), kind: .text, text: text(), imageURL: nil)
        case 5: request = .send(conversation: text(), clientMessageId: text(), kind: .image, text: below(2) == 0 ? nil : text(), imageURL: text())
        case 6: request = .ack(messages: (0..<below(4)).map { _ in text() })
        case 7: request = .scene(SceneReport(scene: .thread(text()), foreground: below(2) == 0, atBottom: below(2) == 0))
        case 8: request = .react(message: text(), emoji: text())
        default: request = .bellRead(notification: text())
        }
        return RequestFrame(id: Int(Int64(bitPattern: next()) >> below(63)), request: request)
    }
}
