import ArgumentParser
import Foundation
import HeraldClock

/// `connect`: authenticated connects per second. D devices first connect once and sync (snapshot) to learn their
/// stream position; then, with --parallel attempts at a time, each device reconnects: TCP connect, upgrade with
/// its token, `sync` with `after` (resume), the response, and a close. A connect counts when its resume answer
/// arrives.
struct ConnectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "connect", abstract: "D devices authenticating and resuming; connects/s.")

    @OptionGroup var common: CommonOptions
    @Option(name: [.customShort("d"), .long], help: "Devices (one user each).") var devices = 1000
    @Option(help: "Connection attempts in progress at once.") var parallel = 64

    func run() throws {
        guard devices >= 1, parallel >= 1 else { throw ValidationError("bad --devices/--parallel") }
        do {
            let prefix = common.userPrefix()
            let names = (0..<devices).map { "\(prefix)u\($0)" }
            let fleet = try BenchScenario.connectFleet(common, deviceUsers: names, prefix: prefix)
            fleet.closeAll()
            let tokens = names.map { fleet.tokenOf[$0] ?? "" }
            let reconnector = Reconnector(loop: fleet.loop, tokens: tokens, latest: fleet.latest, devicePrefix: "\(prefix)d")
            var sampler = ServerSampler(pid: common.serverPid)
            var fields = reconnector.run(parallel: min(parallel, devices), duration: common.durationSeconds, limit: common.count, sampler: &sampler, progress: !common.quiet)
            fields["scenario"] = "connect"
            fields["devices"] = devices
            fields["parallel"] = parallel
            BenchRun.finish(fields)
        } catch {
            BenchRun.fail("connect", error)
        }
    }
}

/// Reconnects devices in turn and times each connect-to-resume.
final class Reconnector: BenchLoopDelegate {
    private let loop: BenchLoop
    private let tokens: [String]
    private let latest: [Int64]
    private let connections: [BenchConnection]
    private let devicePrefix: String
    private var latency = LatencyHistogram()
    private var completed = 0
    private var failed = 0
    private var failures: [String: Int] = [:]
    private var inProgress = 0
    private var nextDevice = 0

    init(loop: BenchLoop, tokens: [String], latest: [Int64], devicePrefix: String) {
        self.loop = loop
        self.tokens = tokens
        self.latest = latest
        self.devicePrefix = devicePrefix
        connections = tokens.indices.map { BenchConnection(tag: $0) }
        loop.delegate = self
    }

    func run(parallel: Int, duration: Double, limit: Int?, sampler: inout ServerSampler, progress: Bool) -> [String: Any] {
        let start = MonotonicClock.nanoseconds()
        let stopAt = start + UInt64(duration * 1e9)
        var nextReport = start + 1_000_000_000
        var lastCompleted = 0
        sampler = ServerSampler(pid: sampler.stats?.pid)
        var now = start
        var started = 0
        while true {
            now = MonotonicClock.nanoseconds()
            let more = now < stopAt && (limit.map { started < $0 } ?? true)
            while more && inProgress < parallel && (limit.map { started < $0 } ?? true) {
                let connection = connections[nextDevice]
                nextDevice = (nextDevice + 1) % connections.count
                guard connection.fd < 0 else { continue }
                connection.reset()
                connection.startedAt = now
                do {
                    try loop.connect(connection, path: "/sync?device=\(devicePrefix)\(connection.tag)", token: tokens[connection.tag])
                    inProgress += 1
                    started += 1
                } catch {
                    failed += 1
                    failures["\(error)", default: 0] += 1
                    break
                }
            }
            if !more && inProgress == 0 { break }
            if now > stopAt + 10_000_000_000 { break }  // attempts still hanging 10 s after the end count as failed
            loop.runOnce(timeoutMs: 1)
            if progress && now >= nextReport {
                nextReport += 1_000_000_000
                let cpu = sampler.intervalCPU()
                Report.progress(String(format: "[connect %4.1fs] connects=%d connects/s=%d failed=%d p99=%.2fms",
                                       Double(now - start) / 1e9, completed, completed - lastCompleted, failed, latency.percentileMs(0.99))
                                + sampler.progressSuffix(cpu: cpu))
                lastCompleted = completed
            }
        }
        failed += inProgress
        let seconds = Double(now - start) / 1e9
        var fields: [String: Any] = [
            "connects": completed, "connects_per_s": Report.round(Double(completed) / seconds, 0), "failed": failed,
            "duration_s": Report.round(seconds, 3), "connect_latency_ms": MessageLoad.percentiles(latency),
        ]
        if !failures.isEmpty { fields["failures"] = failures }
        for (name, value) in sampler.resultFields() { fields[name] = value }
        return fields
    }

    func connectionOpened(_ connection: BenchConnection) {
        connection.send(SyncRequest.sync(id: 1, after: latest[connection.tag]))
        loop.markDirty(connection)
    }

    func connection(_ connection: BenchConnection, received text: UnsafeBufferPointer<UInt8>, at now: UInt64) {
        let scan = SyncFrameScan(text)
        guard scan.kind == .response, scan.requestId == 1 else { return }
        inProgress -= 1
        if scan.ok {
            completed += 1
            latency.record(micros: (now - connection.startedAt) / 1000)
        } else {
            failed += 1
            failures["sync refused", default: 0] += 1
        }
        connection.startClose()
        _ = connection.flush()
        loop.drop(connection)
    }

    func connectionEnded(_ connection: BenchConnection, reason: String) {
        inProgress -= 1
        failed += 1
        failures[reason, default: 0] += 1
    }
}
