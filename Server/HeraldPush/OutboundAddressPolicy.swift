/// Which network addresses a push request may connect to, checked on the exact address libcurl is about to connect to
/// (see ``HTTPTransfer``), so a host name that resolves to the server's own network is refused however it got there:
/// a DNS answer, a rebinding between two lookups, a `*.nip.io` name.
///
/// Pure: it reads the address bytes and nothing else.
public enum OutboundAddressPolicy: Sendable, Equatable {
    /// Globally routable unicast only. For addresses users choose (Web Push endpoints): anything else would let any user
    /// make the server reach its own network (loopback services, RFC 1918 hosts, cloud metadata at 169.254.169.254).
    case publicOnly
    /// Public, and loopback too: the tests' allowance (`--push-allow-http-loopback`), whose stand-ins listen on
    /// 127.0.0.x. Private, link-local and the rest stay refused.
    case publicOrLoopback
    /// Addresses the operator configured (`--apns-url`, `--fcm-url`, the service account's `token_uri`,
    /// `--webhook-url`): the operator may name its own network (a webhook backend on 10.0.0.5, a stand-in on loopback),
    /// so only addresses that are never a single host (unspecified, multicast, broadcast) are refused.
    case operatorConfigured

    /// Why `address` is refused under this policy, or nil when it may be connected to.
    public func refusal(for address: NetworkAddress) -> String? {
        let kind = address.kind
        switch self {
        case .publicOnly: return kind == .publicUnicast ? nil : kind.rawValue
        case .publicOrLoopback: return kind == .publicUnicast || kind == .loopback ? nil : kind.rawValue
        case .operatorConfigured:
            switch kind {
            case .unspecified, .multicast, .broadcast: return kind.rawValue
            default: return nil
            }
        }
    }
}

/// An IPv4 or IPv6 address, as bytes in network order.
public enum NetworkAddress: Sendable, Equatable, CustomStringConvertible {
    case v4(UInt8, UInt8, UInt8, UInt8)
    /// 16 bytes.
    case v6([UInt8])

    /// What kind of address this is, by the IANA special-purpose registries (RFC 6890 and its updates).
    public enum Kind: String, Sendable {
        case publicUnicast = "public"
        case unspecified = "unspecified (0.0.0.0/8, ::)"
        case loopback = "loopback"
        case privateUse = "private (RFC 1918)"
        case sharedAddressSpace = "shared address space (100.64.0.0/10, RFC 6598)"
        case linkLocal = "link-local (169.254.0.0/16, fe80::/10)"
        case uniqueLocal = "unique local (fc00::/7)"
        case multicast = "multicast"
        case broadcast = "broadcast"
        /// Documentation, benchmarking, protocol assignments, reserved and deprecated ranges: nothing a push service
        /// lives on.
        case reserved = "reserved or special-purpose"
    }

    public var kind: Kind {
        switch self {
        case .v4(let a, let b, let c, let d): return Self.kindV4(a, b, c, d)
        case .v6(let bytes): return bytes.count == 16 ? Self.kindV6(bytes) : .reserved
        }
    }

    public var description: String {
        switch self {
        case .v4(let a, let b, let c, let d): return "\(a).\(b).\(c).\(d)"
        case .v6(let bytes):
            var groups: [String] = []
            var index = 0
            while index + 1 < bytes.count {
                groups.append(String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16))
                index += 2
            }
            return groups.joined(separator: ":")
        }
    }

    private static func kindV4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Kind {
        switch (a, b, c) {
        case (0, _, _): return .unspecified  // "this network", 0.0.0.0/8: Linux connects 0.0.0.0 to the local host
        case (10, _, _): return .privateUse
        case (100, 64...127, _): return .sharedAddressSpace
        case (127, _, _): return .loopback
        case (169, 254, _): return .linkLocal
        case (172, 16...31, _): return .privateUse
        case (192, 0, 0), (192, 0, 2), (192, 88, 99): return .reserved
        case (192, 168, _): return .privateUse
        case (198, 18...19, _), (198, 51, 100), (203, 0, 113): return .reserved
        case (224...239, _, _): return .multicast
        case (255, 255, 255) where d == 255: return .broadcast
        case (240...255, _, _): return .reserved
        default: return .publicUnicast
        }
    }

    private static func kindV6(_ bytes: [UInt8]) -> Kind {
        let prefix96 = bytes[0..<12]
        // Forms that carry an IPv4 address are judged by it: ::ffff:127.0.0.1 reaches 127.0.0.1.
        if prefix96.elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]) {  // IPv4-mapped, ::ffff:0:0/96
            return kindV4(bytes[12], bytes[13], bytes[14], bytes[15])
        }
        if prefix96.allSatisfy({ $0 == 0 }) {
            if bytes[12..<15].allSatisfy({ $0 == 0 }) {
                if bytes[15] == 0 { return .unspecified }
                if bytes[15] == 1 { return .loopback }
            }
            return kindV4(bytes[12], bytes[13], bytes[14], bytes[15])  // IPv4-compatible, ::/96 (deprecated)
        }
        if prefix96.elementsEqual([0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]) {  // NAT64, 64:ff9b::/96 (RFC 6052)
            return kindV4(bytes[12], bytes[13], bytes[14], bytes[15])
        }
        if bytes[0] == 0x20, bytes[1] == 0x02 {  // 6to4, 2002::/16: the IPv4 address in bytes 2-5
            return kindV4(bytes[2], bytes[3], bytes[4], bytes[5])
        }
        if bytes[0] == 0xFF { return .multicast }
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return .linkLocal }  // fe80::/10
        if bytes[0] & 0xFE == 0xFC { return .uniqueLocal }  // fc00::/7
        // Outside 2000::/3 nothing is global unicast (fec0::/10 site-local, 64:ff9b:1::/48, 100::/64 discard, ...).
        guard bytes[0] & 0xE0 == 0x20 else { return .reserved }
        // 2001::/23 IETF protocol assignments (Teredo 2001::/32 among them) and 2001:db8::/32 documentation.
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] < 0x02 { return .reserved }
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] == 0x0D, bytes[3] == 0xB8 { return .reserved }
        return .publicUnicast
    }
}
