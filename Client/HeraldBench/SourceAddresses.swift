import Foundation

/// The loopback addresses outgoing connections come from: 127.0.0.1 ... 127.0.0.`count`, connection `tag` from
/// 127.0.0.(1 + tag % count).
///
/// A TCP connection is unique by its four-tuple, and every connection of a run goes to the same server address and
/// port, so one source address holds at most as many as the kernel's ephemeral port range (about 28,000 by
/// default). Each further source address gives another range, which is how one machine holds 100,000 connections
/// to one port. Every address of 127.0.0.0/8 is on the loopback interface already; nothing needs configuring.
struct SourceAddresses {
    /// How many addresses, 1...254.
    let count: Int

    static let largest = 254

    init(count: Int) throws(BenchError) {
        guard (1...Self.largest).contains(count) else { throw BenchError("--source-addresses must be 1...\(Self.largest)") }
        self.count = count
    }

    /// The source address of connection `tag`, in host byte order; nil when the kernel should choose (one address:
    /// no bind, as a plain `connect` does).
    func address(for tag: Int) -> UInt32? {
        guard count > 1 else { return nil }
        return 0x7F00_0001 + UInt32(max(tag, 0) % count)
    }

    /// The kernel's ephemeral port range (`net.ipv4.ip_local_port_range`), or nil when it cannot be read.
    static func ephemeralPortRange() -> ClosedRange<Int>? {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8) else { return nil }
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        guard numbers.count == 2, numbers[0] > 0, numbers[1] >= numbers[0] else { return nil }
        return numbers[0]...numbers[1]
    }

    /// Fails, naming the count needed, when `connections` at once would take more ephemeral ports from one source
    /// address than the kernel's range has (the connects would fail with EADDRNOTAVAIL part way through).
    func check(connections: Int) throws(BenchError) {
        guard let range = Self.ephemeralPortRange() else { return }
        // A few hundred ports stay free for whatever else the machine connects to meanwhile.
        let usable = max(1, range.count - 500)
        let perAddress = (connections + count - 1) / count
        guard perAddress > usable else { return }
        let needed = (connections + usable - 1) / usable
        throw BenchError(
            "\(connections) connections need --source-addresses \(needed) or more: one address has \(range.count) ephemeral ports "
                + "(net.ipv4.ip_local_port_range \(range.lowerBound)-\(range.upperBound)), and --source-addresses \(count) "
                + "puts \(perAddress) connections on each")
    }

    /// `127.0.0.x` for an address in host byte order.
    static func text(_ address: UInt32) -> String {
        "\(address >> 24).\((address >> 16) & 0xFF).\((address >> 8) & 0xFF).\(address & 0xFF)"
    }
}
