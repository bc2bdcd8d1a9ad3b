@testable import HeraldPush
import Testing

/// Which addresses push connections may go to (checked on the address libcurl is about to connect to): a user's Web
/// Push endpoint only to public ones, loopback too with the tests' allowance, an operator's URL anywhere but
/// unspecified, multicast and broadcast.
@Suite("Push: outbound address policy")
struct OutboundAddressPolicyTests {
    static func v6(_ groups: [UInt16]) -> NetworkAddress {
        .v6(groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
    }

    static let refusedForUsers: [(NetworkAddress, NetworkAddress.Kind)] = [
        (.v4(127, 0, 0, 1), .loopback), (.v4(127, 9, 8, 7), .loopback), (.v4(10, 1, 2, 3), .privateUse), (.v4(172, 16, 0, 1), .privateUse),
        (.v4(172, 31, 255, 255), .privateUse), (.v4(192, 168, 1, 1), .privateUse), (.v4(100, 64, 0, 1), .sharedAddressSpace),
        (.v4(100, 127, 255, 254), .sharedAddressSpace), (.v4(169, 254, 169, 254), .linkLocal), (.v4(0, 0, 0, 0), .unspecified),
        (.v4(0, 1, 2, 3), .unspecified), (.v4(224, 0, 0, 1), .multicast), (.v4(255, 255, 255, 255), .broadcast), (.v4(240, 0, 0, 1), .reserved),
        (.v4(192, 0, 2, 5), .reserved), (.v4(198, 18, 0, 1), .reserved),
        (v6([0, 0, 0, 0, 0, 0, 0, 1]), .loopback), (v6([0, 0, 0, 0, 0, 0, 0, 0]), .unspecified), (v6([0xFE80, 0, 0, 0, 0, 0, 0, 1]), .linkLocal),
        (v6([0xFC00, 0, 0, 0, 0, 0, 0, 1]), .uniqueLocal), (v6([0xFD12, 0x3456, 0, 0, 0, 0, 0, 1]), .uniqueLocal),
        (v6([0xFF02, 0, 0, 0, 0, 0, 0, 1]), .multicast), (v6([0x2001, 0x0DB8, 0, 0, 0, 0, 0, 1]), .reserved),
        (v6([0x2001, 0, 0, 0, 0, 0, 0, 1]), .reserved), (v6([0xFEC0, 0, 0, 0, 0, 0, 0, 1]), .reserved),
        // IPv4 addresses in IPv6 forms are judged by the IPv4 address they reach.
        (v6([0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 0x0001]), .loopback), (v6([0, 0, 0, 0, 0, 0xFFFF, 0xA9FE, 0xA9FE]), .linkLocal),
        (v6([0, 0, 0, 0, 0, 0, 0x0A00, 0x0001]), .privateUse), (v6([0x64, 0xFF9B, 0, 0, 0, 0, 0xC0A8, 0x0101]), .privateUse),
        (v6([0x2002, 0x7F00, 0x0001, 0, 0, 0, 0, 1]), .loopback),
    ]

    @Test("Loopback, private, CGNAT, link-local (metadata), unique local, multicast, unspecified and reserved addresses, and IPv4 in IPv6 forms of them, are refused for users' endpoints")
    func refusedForUsers() {
        for (address, kind) in Self.refusedForUsers {
            #expect(address.kind == kind, "\(address)")
            #expect(OutboundAddressPolicy.publicOnly.refusal(for: address) == kind.rawValue, "\(address)")
        }
    }

    @Test("Public IPv4 and IPv6 unicast (and their IPv4-mapped forms) are allowed")
    func publicAllowed() {
        let addresses: [NetworkAddress] = [
            .v4(8, 8, 8, 8), .v4(142, 250, 74, 10), .v4(100, 63, 255, 255), .v4(100, 128, 0, 0), .v4(172, 32, 0, 1), .v4(192, 169, 0, 1),
            Self.v6([0x2A00, 0x1450, 0x4001, 0x0800, 0, 0, 0, 0x200E]), Self.v6([0, 0, 0, 0, 0, 0xFFFF, 0x0808, 0x0808]),
        ]
        for address in addresses {
            #expect(address.kind == .publicUnicast, "\(address)")
            #expect(OutboundAddressPolicy.publicOnly.refusal(for: address) == nil, "\(address)")
        }
    }

    @Test("The tests' allowance adds loopback only; private and link-local stay refused")
    func loopbackAllowance() {
        #expect(OutboundAddressPolicy.publicOrLoopback.refusal(for: .v4(127, 0, 0, 3)) == nil)
        #expect(OutboundAddressPolicy.publicOrLoopback.refusal(for: Self.v6([0, 0, 0, 0, 0, 0, 0, 1])) == nil)
        #expect(OutboundAddressPolicy.publicOrLoopback.refusal(for: .v4(10, 0, 0, 1)) != nil)
        #expect(OutboundAddressPolicy.publicOrLoopback.refusal(for: .v4(169, 254, 169, 254)) != nil)
        #expect(OutboundAddressPolicy.publicOrLoopback.refusal(for: Self.v6([0xFE80, 0, 0, 0, 0, 0, 0, 1])) != nil)
    }

    @Test("Operator-configured URLs may name the operator's own network, never unspecified, multicast or broadcast")
    func operatorConfigured() {
        for address: NetworkAddress in [.v4(127, 0, 0, 1), .v4(10, 0, 0, 5), Self.v6([0, 0, 0, 0, 0, 0, 0, 1]), .v4(8, 8, 8, 8)] {
            #expect(OutboundAddressPolicy.operatorConfigured.refusal(for: address) == nil, "\(address)")
        }
        for address: NetworkAddress in [.v4(0, 0, 0, 0), .v4(224, 0, 0, 1), .v4(255, 255, 255, 255), Self.v6([0, 0, 0, 0, 0, 0, 0, 0])] {
            #expect(OutboundAddressPolicy.operatorConfigured.refusal(for: address) != nil, "\(address)")
        }
    }
}
