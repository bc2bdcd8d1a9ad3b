import ArgumentParser
import Foundation
import Glibc
import HeraldClock

/// `hold`: one share of a crowd, in a process of its own. `crowd --processes P` starts P - 1 of these, because one
/// process may hold no more sockets than its open-file limit allows (20,000 on some machines, where root cannot
/// raise it), and a crowd of 100,000 devices then needs several.
///
/// Devices `--first` ... `--first` + `--devices` - 1 of the crowd (users and device ids named as the crowd names them,
/// spread over nodes and source addresses by their crowd-wide index) connect and sync; then one JSON line on stdout
/// says so (`"ready": true`, with the share's connect time). They stay connected, answering pings, until stdin ends
/// (the crowd closes it, or exits); then a last JSON line says whether every one stayed connected.
struct HoldCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hold",
        abstract: "One share of a crowd's devices: connect and sync them, say so on stdout, keep them until stdin ends.",
        discussion: "Started by `crowd --processes`; --prefix must be the crowd's, so that users and devices are named alike.")

    @OptionGroup var common: CommonOptions
    @Option(help: "The crowd-wide index of this share's first device.") var first: Int
    @Option(name: [.customShort("d"), .long], help: "Devices in this share, one user each.") var devices: Int
    @Option(help: "Devices in the whole crowd (all shares): the source addresses must hold them all.") var crowd: Int
    @Option(help: "Connection attempts (TCP connect, upgrade, sync) in progress at once.") var parallel = 200

    func validate() throws {
        guard common.prefix != nil else { throw ValidationError("give --prefix: the crowd's, so that users are named alike") }
        guard first >= 0, devices >= 1, crowd >= first + devices, parallel >= 1 else { throw ValidationError("bad --first/--devices/--crowd/--parallel") }
    }

    func run() throws {
        do {
            let prefix = common.userPrefix()
            let names = (first..<first + devices).map { "\(prefix)u\($0)" }
            let fleet = try BenchScenario.makeFleet(common, deviceUsers: names, prefix: prefix, firstDevice: first, crowdSize: crowd)
            try fleet.prepareTokens()
            let start = MonotonicClock.nanoseconds()
            try fleet.connectAll(parallel: parallel, deadline: BenchRun.deadline(common.setupTimeoutSeconds), progress: !common.quiet)
            let seconds = Double(MonotonicClock.nanoseconds() - start) / 1e9
            Report.result([
                "scenario": "hold", "ready": true, "first": first, "devices": devices, "connect_s": Report.round(seconds, 3),
                "connect_latency_ms": MessageLoad.percentiles(fleet.connectLatency),
            ])
            try fleet.idle(until: Self.standardInputEnded)
            let connected = fleet.loop.openCount
            fleet.closeAll()
            BenchRun.finish([
                "scenario": "hold", "first": first, "devices": devices, "connected_at_end": connected,
                "dropped_connections": devices - connected,
            ])
        } catch {
            BenchRun.fail("hold", error)
        }
    }

    /// Whether stdin has ended: the parent closed its end of the pipe, or exited. Reads and discards what arrives.
    private static func standardInputEnded() -> Bool {
        var entry = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return false }
        var scratch = [UInt8](repeating: 0, count: 256)
        let count = read(0, &scratch, scratch.count)
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR)
    }
}
