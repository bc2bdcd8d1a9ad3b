import ArgumentParser
import Foundation
import HeraldClock
import HeraldProtocol

/// `crowd`: many live devices at once, and a busy group among them. D devices (one user each) connect and sync;
/// once they are idle the server's memory per device is read from /proc; then the first N devices form a group in
/// which device 0 sends --rate messages a second, delivered to every member while all D stay connected.
/// One run gives the connect rate, the memory a live device costs the server and the fan-out latency in a crowd.
struct CrowdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crowd",
        abstract: "D live devices: connect rate, server memory per device, then a group of N of them at --rate msgs/s.",
        discussion: """
            Needs --server-pid (the server's RSS is read before connecting and after --idle seconds of the devices \
            being connected and idle) and, past about 28,000 devices, --source-addresses.
            """)

    @OptionGroup var common: CommonOptions
    @Option(name: [.customShort("d"), .long], help: "Devices, one user each, all connected and synced during the run.") var devices = 1000
    @Option(name: [.customShort("n"), .long], help: "Group members: the first N devices (device 0 creates the group and sends), 2...1001.")
    var members = 1000
    @Option(help: "Messages per second into the group.") var rate: Double = 20
    @Option(help: "Text size in bytes.") var size = 100
    @Option(help: "Seconds the connected devices stay idle before the server's memory is read.") var idle: Double = 5
    @Option(help: "Connection attempts (TCP connect, upgrade, sync) in progress at once.") var parallel = 200

    func validate() throws {
        let largest = ProtocolLimits.default.maxGroupMembers + 1
        guard (2...largest).contains(members) else {
            throw ValidationError("--members must be 2...\(largest) (a group names at most \(largest - 1) others)")
        }
        guard devices >= members else { throw ValidationError("--devices must be at least --members (the members are devices)") }
        guard rate > 0, size >= 40, idle >= 0, parallel >= 1 else { throw ValidationError("bad --rate/--size/--idle/--parallel") }
        guard common.serverPid != nil else { throw ValidationError("crowd reads the server's memory: give --server-pid") }
    }

    func run() throws {
        do {
            let prefix = common.userPrefix()
            let names = (0..<devices).map { "\(prefix)u\($0)" }
            let fleet = try BenchScenario.makeFleet(common, deviceUsers: names, prefix: prefix)
            try fleet.prepareTokens()
            let server = ServerStats(pid: common.serverPid ?? 0)
            let before = try Self.rss(server)

            let connectStart = MonotonicClock.nanoseconds()
            try fleet.connectAll(parallel: parallel, deadline: BenchRun.deadline(common.setupTimeout), progress: !common.quiet)
            let connectSeconds = Double(MonotonicClock.nanoseconds() - connectStart) / 1e9
            let bySource = fleet.connectionsBySource()
            if !common.quiet {
                Report.progress(String(format: "%d devices synced in %.1f s (%.0f/s); idle for %.1f s, then the server's memory",
                                       devices, connectSeconds, Double(devices) / connectSeconds, idle))
            }
            try fleet.idle(seconds: idle)
            let connected = try Self.rss(server)
            let perDeviceKiB = Double(connected - before) / Double(devices)
            if !common.quiet {
                Report.progress(String(format: "server RSS %d MiB -> %d MiB: %.2f KiB per device; group of %d members at %.0f msgs/s",
                                       before / 1024, connected / 1024, perDeviceKiB, members, rate))
            }

            // The group is created and announced to every member before the load, as a group is long before it gets
            // busy; timing the first messages while the server still writes out 1,000 announcements would add that
            // burst to the fan-out latency.
            let groupStart = MonotonicClock.nanoseconds()
            let eventsBefore = fleet.setupEvents
            let group = try BenchScenario.createConversations(fleet, common, what: "group", requests: [
                (0, { SyncRequest.group(id: $0, title: "crowd \(prefix)", members: Array(names[1..<members])) })
            ])
            try fleet.awaitAnnouncement(to: 1..<members, quietSeconds: 0.5, deadline: BenchRun.deadline(common.setupTimeout))
            let groupSeconds = Double(MonotonicClock.nanoseconds() - groupStart) / 1e9
            let load = MessageLoad(
                fleet: fleet, conversations: [.init(id: group[0], receivers: members)],
                senders: [.init(device: 0, conversation: 0)], pace: .rate(rate), size: size, prefix: prefix)
            var fields: [String: Any] = [
                "devices": devices, "members": members, "rate": rate, "size": size, "idle_s": idle, "parallel": parallel,
                "source_addresses": common.sourceAddresses, "connections_by_source": bySource,
                "connect_s": Report.round(connectSeconds, 3), "connects_per_s": Report.round(Double(devices) / connectSeconds, 0),
                "connect_latency_ms": MessageLoad.percentiles(fleet.connectLatency),
                "server_rss_before_kib": before, "server_rss_idle_kib": connected,
                "server_rss_per_device_kib": Report.round(perDeviceKiB, 2),
                "group_setup_s": Report.round(groupSeconds, 3), "group_setup_events": fleet.setupEvents - eventsBefore,
            ]
            if let own = ServerStats(pid: getpid()).memoryKiB() { fields["bench_rss_kib"] = own.rss }
            BenchScenario.run(load, on: fleet, common, scenario: "crowd", fields: fields)
        } catch {
            BenchRun.fail("crowd", error)
        }
    }

    /// The server's resident set in KiB; fails when /proc has no such process.
    private static func rss(_ server: ServerStats) throws(BenchError) -> Int {
        guard let memory = server.memoryKiB(), memory.rss > 0 else {
            throw BenchError("cannot read the RSS of pid \(server.pid) from /proc: is --server-pid the running server?")
        }
        return memory.rss
    }
}
