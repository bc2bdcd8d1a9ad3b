import HeraldDeflate
import HeraldWebSocket
import Testing

@Suite("permessage-deflate negotiation (RFC 7692 §5, §7.1)")
struct NegotiationTests {
    @Test("RFC 6455 §9.1: extension header grammar, quoted values, several offers")
    func parsesExtensionHeader() throws {
        let offers = try ExtensionOffer.parse([
            "permessage-deflate; client_max_window_bits; server_max_window_bits=\"10\" , x-webkit-deflate-frame",
            "permessage-deflate",
        ])
        #expect(offers.count == 3)
        #expect(offers[0].name == "permessage-deflate")
        #expect(offers[0].parameters.map(\.name) == ["client_max_window_bits", "server_max_window_bits"])
        #expect(offers[0].parameters.map(\.value) == [nil, "10"])
        #expect(offers[1].name == "x-webkit-deflate-frame")
        #expect(offers[2].parameters.isEmpty)
    }

    @Test("RFC 6455 §9.1: malformed extension headers are errors, not crashes",
          arguments: ["permessage-deflate;", "; foo", "permessage-deflate; a=\"unterminated", "permessage-deflate x", "permessage-deflate; =1"])
    func rejectsMalformedHeader(_ header: String) {
        #expect(throws: PerMessageDeflateError.self) { try ExtensionOffer.parse([header]) }
    }

    /// (offer from the client, the server's expected response header or nil for "declined").
    static let serverCases: [(String, String?)] = [
        // The server always adds server_no_context_takeover (fan-out), allowed unasked by §7.1.1.1.
        ("permessage-deflate", "permessage-deflate; server_no_context_takeover"),
        ("permessage-deflate; client_max_window_bits", "permessage-deflate; server_no_context_takeover"),
        ("permessage-deflate; client_max_window_bits=10", "permessage-deflate; server_no_context_takeover; client_max_window_bits=10"),
        ("permessage-deflate; client_max_window_bits=\"12\"", "permessage-deflate; server_no_context_takeover; client_max_window_bits=12"),
        ("permessage-deflate; server_max_window_bits=9", "permessage-deflate; server_no_context_takeover; server_max_window_bits=9"),
        ("permessage-deflate; server_max_window_bits=15", "permessage-deflate; server_no_context_takeover; server_max_window_bits=15"),
        ("permessage-deflate; client_no_context_takeover",
         "permessage-deflate; server_no_context_takeover; client_no_context_takeover"),
        ("permessage-deflate; server_no_context_takeover; client_no_context_takeover",
         "permessage-deflate; server_no_context_takeover; client_no_context_takeover"),
        // zlib raw deflate cannot compress with a 256-byte window: declined.
        ("permessage-deflate; server_max_window_bits=8", nil),
        // 8 for the client's window is fine for us: we inflate with a larger window.
        ("permessage-deflate; client_max_window_bits=8", "permessage-deflate; server_no_context_takeover; client_max_window_bits=8"),
        // §7.1: invalid values, unknown and duplicate parameters decline the offer.
        ("permessage-deflate; server_max_window_bits=16", nil),
        ("permessage-deflate; server_max_window_bits=7", nil),
        ("permessage-deflate; server_max_window_bits=010", nil),
        ("permessage-deflate; server_max_window_bits", nil),
        ("permessage-deflate; client_max_window_bits=abc", nil),
        ("permessage-deflate; server_no_context_takeover=1", nil),
        ("permessage-deflate; mystery", nil),
        ("permessage-deflate; client_no_context_takeover; client_no_context_takeover", nil),
        // The first acceptable offer wins; a declined one falls through to the next.
        ("permessage-deflate; server_max_window_bits=8, permessage-deflate; client_max_window_bits",
         "permessage-deflate; server_no_context_takeover"),
        ("x-webkit-deflate-frame", nil),
        ("", nil),
        ("permessage-deflate; ;", nil),
    ]

    @Test("RFC 7692 §7.1: server answers each offer", arguments: serverCases)
    func serverNegotiation(_ offer: String, _ expected: String?) {
        let agreed = PerMessageDeflateServerConfiguration().negotiate([offer])
        #expect(agreed?.responseHeader == expected)
    }

    @Test("RFC 7692 §7.1.2: server limits windows from its configuration and never answers unoffered client_max_window_bits")
    func serverConfigurationLimits() {
        var configuration = PerMessageDeflateServerConfiguration()
        configuration.maxWindowBits = 11
        configuration.clientMaxWindowBits = 10
        configuration.noContextTakeover = false
        #expect(configuration.negotiate(["permessage-deflate"])?.responseHeader == "permessage-deflate; server_max_window_bits=11")
        #expect(configuration.negotiate(["permessage-deflate; client_max_window_bits"])?.responseHeader
                == "permessage-deflate; server_max_window_bits=11; client_max_window_bits=10")
        #expect(configuration.negotiate(["permessage-deflate; client_max_window_bits=9; server_max_window_bits=13"])?.responseHeader
                == "permessage-deflate; server_max_window_bits=11; client_max_window_bits=9")
    }

    @Test("Declines carry the reason")
    func declineReasons() throws {
        let configuration = PerMessageDeflateServerConfiguration()
        func reason(_ header: String) throws -> PerMessageDeflateError? {
            let offer = try #require(try ExtensionOffer.parse([header]).first)
            if case .failure(let error) = configuration.accept(offer) { return error }
            return nil
        }
        #expect(try reason("permessage-deflate; server_max_window_bits=8") == .unsupportedWindowBits(parameter: "server_max_window_bits", value: 8))
        #expect(try reason("permessage-deflate; server_max_window_bits=16") == .invalidValue(parameter: "server_max_window_bits", value: "16"))
        #expect(try reason("permessage-deflate; foo=1") == .unknownParameter("foo"))
        #expect(try reason("permessage-deflate; server_no_context_takeover; server_no_context_takeover")
                == .duplicateParameter("server_no_context_takeover"))
    }

    @Test("Client offers")
    func clientOffers() {
        var configuration = PerMessageDeflateClientConfiguration()
        #expect(configuration.offerHeader == "permessage-deflate; client_max_window_bits")
        configuration.requestServerNoContextTakeover = true
        configuration.noContextTakeover = true
        configuration.requestServerMaxWindowBits = 10
        configuration.maxWindowBits = 12
        #expect(configuration.offerHeader
                == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; client_max_window_bits=12")
    }

    /// (client configuration, server response, whether it is accepted).
    static let clientCases: [(PerMessageDeflateClientConfiguration, String, Bool)] = {
        let plain = PerMessageDeflateClientConfiguration()
        var askingWindow = PerMessageDeflateClientConfiguration()
        askingWindow.requestServerMaxWindowBits = 10
        var askingReset = PerMessageDeflateClientConfiguration()
        askingReset.requestServerNoContextTakeover = true
        var limited = PerMessageDeflateClientConfiguration()
        limited.maxWindowBits = 11
        return [
            (plain, "permessage-deflate", true),
            (plain, "permessage-deflate; server_no_context_takeover", true),  // unasked is allowed (§7.1.1.1)
            (plain, "permessage-deflate; client_no_context_takeover", true),
            (plain, "permessage-deflate; client_max_window_bits=9", true),
            (plain, "permessage-deflate; server_max_window_bits=12", true),
            (plain, "permessage-deflate; client_max_window_bits=8", false),  // we cannot compress with 8
            (plain, "permessage-deflate; client_max_window_bits", false),  // a response needs a value
            (plain, "permessage-deflate; server_max_window_bits=16", false),
            (plain, "permessage-deflate; foo", false),
            (plain, "x-other", false),
            (plain, "permessage-deflate, permessage-deflate", false),
            (askingWindow, "permessage-deflate; server_max_window_bits=10", true),
            (askingWindow, "permessage-deflate; server_max_window_bits=9", true),
            (askingWindow, "permessage-deflate; server_max_window_bits=11", false),
            (askingWindow, "permessage-deflate", false),
            (askingReset, "permessage-deflate; server_no_context_takeover", true),
            (askingReset, "permessage-deflate", false),
            (limited, "permessage-deflate; client_max_window_bits=12", false),
            (limited, "permessage-deflate; client_max_window_bits=10", true),
        ]
    }()

    @Test("RFC 7692 §7.1: client validates the server's response", arguments: clientCases)
    func clientValidation(_ configuration: PerMessageDeflateClientConfiguration, _ response: String, _ accepted: Bool) {
        let result = Result { () throws(PerMessageDeflateError) in try configuration.acceptResponse([response]) }
        if accepted {
            #expect((try? result.get()) != nil, "\(response)")
        } else {
            #expect(throws: PerMessageDeflateError.self, "\(response)") { try result.get() }
        }
    }

    @Test("No extension in the response means no compression")
    func noResponseMeansNoCompression() throws {
        #expect(try PerMessageDeflateClientConfiguration().acceptResponse([]) == nil)
    }

    @Test("Agreed windows per direction; the client keeps its own limit when the server is silent")
    func effectiveWindows() throws {
        var configuration = PerMessageDeflateClientConfiguration()
        configuration.maxWindowBits = 11
        let agreed = try #require(try configuration.acceptResponse(["permessage-deflate; server_max_window_bits=10"]))
        #expect(agreed.sendingWindowBits(for: .client) == 11)
        #expect(agreed.receivingWindowBits(for: .client) == 10)
        #expect(agreed.sendingWindowBits(for: .server) == 10)
        #expect(agreed.receivingWindowBits(for: .server) == 11)
    }
}
