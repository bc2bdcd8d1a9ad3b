/// One element of a `Sec-WebSocket-Extensions` header: an extension name and its parameters (RFC 6455 §9.1).
///
/// ```
/// Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits, permessage-deflate
///                           \________ one ExtensionOffer ____________/  \__ another ___/
/// ```
public struct ExtensionOffer: Sendable, Hashable {
    /// The extension token, e.g. `permessage-deflate` (compared case-insensitively).
    public var name: String
    /// The parameters in order; `value` is nil for a bare parameter such as `server_no_context_takeover`.
    /// A quoted-string value is stored unquoted (RFC 7692 §7.1: `client_max_window_bits="10"` means 10).
    public var parameters: [(name: String, value: String?)]

    /// Creates an offer.
    public init(name: String, parameters: [(name: String, value: String?)] = []) {
        self.name = name
        self.parameters = parameters
    }

    public static func == (lhs: ExtensionOffer, rhs: ExtensionOffer) -> Bool {
        lhs.name == rhs.name && lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        for parameter in parameters {
            hasher.combine(parameter.name)
            hasher.combine(parameter.value)
        }
    }

    /// Parses every value of the `Sec-WebSocket-Extensions` header (repeated header lines are one list, RFC 9110 §5.3).
    ///
    /// Grammar (RFC 6455 §9.1): `extension-list = 1#extension`, `extension = token *( ";" token [ "=" (token |
    /// quoted-string) ] )`. Empty list elements are skipped, as RFC 9110 §5.6.1 asks of recipients.
    ///
    /// - Throws: ``PerMessageDeflateError/malformedHeader(_:)`` for anything outside that grammar.
    public static func parse(_ headerValues: [String]) throws(PerMessageDeflateError) -> [ExtensionOffer] {
        var offers: [ExtensionOffer] = []
        for value in headerValues {
            var scanner = HeaderScanner(Array(value.utf8))
            try scanner.parseList(into: &offers)
        }
        return offers
    }

    /// The offer as header text, e.g. `permessage-deflate; client_max_window_bits=10`.
    public var headerValue: String {
        var text = name
        for parameter in parameters {
            text += "; " + parameter.name
            if let value = parameter.value { text += "=" + value }
        }
        return text
    }
}

/// A byte scanner for the extension list grammar.
private struct HeaderScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseList(into offers: inout [ExtensionOffer]) throws(PerMessageDeflateError) {
        while true {
            skipWhitespace()
            guard let byte = peek() else { return }
            if byte == UInt8(ascii: ",") {
                index += 1  // empty list element
                continue
            }
            offers.append(try parseExtension())
            skipWhitespace()
            guard let next = peek() else { return }
            guard next == UInt8(ascii: ",") else { throw .malformedHeader("expected ',' after extension, found '\(Character(Unicode.Scalar(next)))'") }
            index += 1
        }
    }

    private mutating func parseExtension() throws(PerMessageDeflateError) -> ExtensionOffer {
        var offer = ExtensionOffer(name: try token("extension name"))
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: ";") else { return offer }
            index += 1
            skipWhitespace()
            let name = try token("parameter name")
            skipWhitespace()
            var value: String?
            if peek() == UInt8(ascii: "=") {
                index += 1
                skipWhitespace()
                value = peek() == UInt8(ascii: "\"") ? try quotedString() : try token("parameter value")
            }
            offer.parameters.append((name: name, value: value))
        }
    }

    private mutating func token(_ what: String) throws(PerMessageDeflateError) -> String {
        let start = index
        while let byte = peek(), Self.isTokenCharacter(byte) { index += 1 }
        guard index > start else { throw .malformedHeader("expected \(what)") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func quotedString() throws(PerMessageDeflateError) -> String {
        index += 1  // opening quote
        var value: [UInt8] = []
        while let byte = peek() {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = peek() else { throw .malformedHeader("unterminated quoted-string") }
                index += 1
                value.append(escaped)
            default:
                value.append(byte)
            }
        }
        throw .malformedHeader("unterminated quoted-string")
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    /// RFC 9110 §5.6.2 tchar.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
