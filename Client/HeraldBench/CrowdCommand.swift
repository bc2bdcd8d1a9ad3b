import ArgumentParser
import Foundation
import HeraldClock
import HeraldProtocol

/// `crowd`: many live devices at once, and a busy group among them. D devices (one user each) connect and sync;
/// once they are idle the server's memory per device is read from /proc; then the first N devices form a group in
/// which device 0 sends --rate messages a second, delivered to every member while all D stay connected.
/// One run gives the connect rate, the memory a live device costs the server and the fan-out latency in a crowd.
///
/// One process holds at most as many sockets as its open-file limit allows; with `--processes P` the crowd is cut into
/// P shares and this process starts P - 1 `hold` processes for all but the first (which has the group's members), so a
/// crowd larger than that limit still runs from one command. With several nodes (`--server` repeated, `--node-pid`), the
/// server's memory is the sum over the nodes.
struct CrowdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crowd",
        abstract: "D live devices: connect rate, server memory per device, then a group of N of them at --rate msgs/s.",
        discussion: """
            Needs --server-pid (the server's RSS is read before connecting and after --idle-seconds of the devices \
            being connected and idle; --node-pid for each further node) and, past about 28,000 devices, \
            --source-addresses; past this process's open-file limit, --processes.
            """)

    @OptionGroup var common: CommonOptions
    @Option(name: [.customShort("d"), .long], help: "Devices, one user each, all connected and synced during the run.") var devices = 1000
    @Option(name: [.customShort("n"), .long], help: "Group members: the first N devices (device 0 creates the group and sends), 2...1001.")
    var members = 1000
    @Option(help: "Messages per second into the group.") var rate: Double = 20
    @Option(help: "Text size in bytes.") var textBytes = 100
    @Option(help: "Seconds the connected devices stay idle before the server's memory is read.") var idleSeconds: Double = 5
    @Option(help: "Connection attempts (TCP connect, upgrade, sync) in progress at once, over all processes.") var parallel = 200
    @Option(help: "Processes holding the devices: this one (the first share, with the group) and P - 1 `hold` processes.")
    var processes = 1
    @Option(help: "The PID of a further node (a further --server): its memory counts with --server-pid's. Repeat for each node.")
    var nodePid: [Int32] = []

    func validate() throws {
        let largest = ProtocolLimits.default.maxGroupMembers + 1
        guard (2...largest).contains(members) else {
            throw ValidationError("--members must be 2...\(largest) (a group names at most \(largest - 1) others)")
        }
        guard devices >= members else { throw ValidationError("--devices must be at least --members (the members are devices)") }
        guard rate > 0, textBytes >= 40, idleSeconds >= 0, parallel >= 1 else { throw ValidationError("bad --rate/--text-bytes/--idle-seconds/--parallel") }
        guard common.serverPid != nil else { throw ValidationError("crowd reads the server's memory: give --server-pid") }
        guard processes >= 1, devices / processes >= 1 else { throw ValidationError("--processes must be 1...--devices") }
        guard ownShare >= members else {
            throw ValidationError("the first of \(processes) shares has \(ownShare) devices, fewer than --members: use fewer processes")
        }
    }

    /// Devices in each `hold` process; this process holds the rest, from device 0.
    private var otherShare: Int { devices / processes }
    private var ownShare: Int { devices - (processes - 1) * otherShare }
    /// Each process's part of `--parallel`.
    private var parallelPerProcess: Int { max(1, parallel / processes) }

    func run() throws {
        do {
            let prefix = common.userPrefix()
            let names = (0..<devices).map { "\(prefix)u\($0)" }
            let fleet = try BenchScenario.makeFleet(common, deviceUsers: Array(names[0..<ownShare]), prefix: prefix, crowdSize: devices)
            try fleet.prepareTokens()
            let nodes = ([common.serverPid ?? 0] + nodePid).map(ServerStats.init(pid:))
            let before = try Self.rss(nodes)

            let connectStart = MonotonicClock.nanoseconds()
            let shares = try startShares(prefix: prefix)
            let deadline = BenchRun.deadline(common.setupTimeoutSeconds)
            do {
                try fleet.connectAll(parallel: parallelPerProcess, deadline: deadline, progress: !common.quiet)
                while try !(shares?.ready() ?? true) {
                    fleet.loop.runOnce(timeoutMs: 10)
                    if MonotonicClock.nanoseconds() > deadline { throw BenchError("setup timed out: a share's devices are not all synced") }
                }
            } catch {
                shares?.terminate()
                throw error
            }
            let connectSeconds = Double(MonotonicClock.nanoseconds() - connectStart) / 1e9
            let bySource = fleet.connectionsBySource()
            if !common.quiet {
                Report.progress(String(format: "%d devices synced in %.1f s (%.0f/s); idle for %.1f s, then the server's memory",
                                       devices, connectSeconds, Double(devices) / connectSeconds, idleSeconds))
            }
            try fleet.idle(seconds: idleSeconds)
            let connected = try Self.rss(nodes)
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
            try fleet.awaitAnnouncement(to: 1..<members, quietSeconds: 0.5, deadline: BenchRun.deadline(common.setupTimeoutSeconds))
            let groupSeconds = Double(MonotonicClock.nanoseconds() - groupStart) / 1e9
            let load = MessageLoad(
                fleet: fleet, plan: .init(conversations: [.init(id: group[0], receivers: members)],
                senders: [.init(device: 0, conversation: 0)], pace: .rate(rate), textBytes: textBytes, prefix: prefix))
            var fields: [String: Any] = [
                "devices": devices, "members": members, "rate": rate, "size": textBytes, "idle_s": idleSeconds, "parallel": parallel,
                "source_addresses": common.sourceAddresses, "connections_by_source": bySource,
                "processes": processes, "nodes": nodes.count, "devices_per_process": [ownShare] + Array(repeating: otherShare, count: processes - 1),
                "connect_s": Report.round(connectSeconds, 3), "connects_per_s": Report.round(Double(devices) / connectSeconds, 0),
                "connect_latency_ms": MessageLoad.percentiles(fleet.connectLatency),
                "other_processes_connect": shares?.readyLines().map { ["first": $0["first"] ?? 0, "connect_s": $0["connect_s"] ?? 0,
                                                                       "connect_latency_ms": $0["connect_latency_ms"] ?? [:]] } ?? [],
                "server_rss_before_kib": before, "server_rss_idle_kib": connected,
                "server_rss_per_device_kib": Report.round(perDeviceKiB, 2),
                "group_setup_s": Report.round(groupSeconds, 3), "group_setup_events": fleet.setupEvents - eventsBefore,
            ]
            if let own = ServerStats(pid: getpid()).memoryKiB() { fields["bench_rss_kib"] = own.rss }
            BenchScenario.run(load, on: fleet, common, scenario: "crowd", fields: fields) { result in
                guard let shares else { return }
                // Every device of the other shares must have stayed connected through the load, as this share's did.
                let ends = shares.stop(seconds: 30)
                let failed = ends.filter { $0["error"] != nil }
                let dropped = ends.reduce(0) { $0 + ($1["dropped_connections"] as? Int ?? 0) }
                result["other_processes_dropped_connections"] = dropped
                result["dropped_connections"] = (result["dropped_connections"] as? Int ?? 0) + dropped
                if !failed.isEmpty {
                    result["failed"] = failed.count
                    result["other_processes_errors"] = failed
                }
            }
        } catch {
            BenchRun.fail("crowd", error)
        }
    }

    /// The `hold` processes for every share but the first, already connecting; nil with one process.
    private func startShares(prefix: String) throws(BenchError) -> CrowdShares? {
        guard processes > 1 else { return nil }
        var passed = common.servers.flatMap { ["--server", $0] }
        if let secret = common.secret { passed += ["--secret", secret] }
        if let serverBin = common.serverBin, let db = common.db { passed += ["--server-bin", serverBin, "--db", db] }
        passed += ["--prefix", prefix, "--source-addresses", String(common.sourceAddresses), "--setup-timeout-seconds", String(common.setupTimeoutSeconds),
                   "--crowd", String(devices), "--parallel", String(parallelPerProcess)]
        if common.quiet { passed.append("--quiet") }
        let shares = (1..<processes).map { (first: ownShare + ($0 - 1) * otherShare, count: otherShare) }
        return try CrowdShares(shares: shares) { first, count in passed + ["--first", String(first), "--devices", String(count)] }
    }

    /// The nodes' resident sets in KiB, summed; fails when /proc has no such process.
    private static func rss(_ nodes: [ServerStats]) throws(BenchError) -> Int {
        var total = 0
        for node in nodes {
            guard let memory = node.memoryKiB(), memory.rss > 0 else {
                throw BenchError("cannot read the RSS of pid \(node.pid) from /proc: are --server-pid and --node-pid the running nodes?")
            }
            total += memory.rss
        }
        return total
    }
}
