import Foundation
import HeraldProtocol
import Testing

@Suite("JSONValue: one JSON value for the client's output lines and the backend API's request bodies")
struct JSONValueTests {
    private func decode(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test("JSON Schema's integer: 1 and 1.0 are integers, 1.5 and 1e300 are numbers but not integers, true is no number")
    func numbers() throws {
        #expect(try decode("1") == .int(1))
        #expect(try decode("1.0") == .int(1))
        #expect(try decode("-9223372036854775808") == .int(Int64.min))
        #expect(try decode("1.5") == .double(1.5))
        #expect(try decode("1e300") == .double(1e300))
        #expect(try decode("true") == .bool(true))
        #expect(try decode("true").numberValue == nil)
        #expect(try decode("2.5").numberValue == 2.5)
    }

    @Test("RFC 8259 section 4: objects are looked up by key; a repeated key gives one value")
    func objects() throws {
        let object = try decode(#"{"b":[1,"x",null],"a":{"c":false}}"#)
        #expect(object.fieldsByKey?["b"] == .array([.int(1), .string("x"), .null]))
        #expect(object["a"]?["c"] == .bool(false))
        #expect(try decode("[1]").fieldsByKey == nil)
    }

    @Test("Written text keeps the fields' order and escapes controls and line separators on one line")
    func text() {
        let value: JSONValue = .object(["type": "event", "n": 3, "x": .double(0.5), "s": "a\n\u{2028}\"", "none": nil])
        #expect(value.text == #"{"type":"event","n":3,"x":0.5,"s":"a\n\u2028\"","none":null}"#)
    }
}
