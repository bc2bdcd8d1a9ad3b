import Foundation
import HeraldClock

/// Writes one progress line per second to stderr and the final one-line JSON result to stdout.
enum Report {
    static func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Prints `fields` as one JSON object line (keys sorted, so results diff cleanly).
    static func result(_ fields: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data("{}".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func round(_ value: Double, _ places: Int = 2) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
}

/// Samples the server's CPU use and memory over an interval (when `--server-pid` is given), and the generator's own
/// CPU use and each CPU's busy and steal time over the same interval.
struct ServerSampler {
    let stats: ServerStats?
    private var lastCPU: Double?
    private var lastAt: UInt64
    private var startCPU: Double?
    private let startAt: UInt64
    private let generatorStartCPU = Self.generatorCPUSeconds()
    private let machineStart = MachineCPUTimes()

    init(pid: Int32?) {
        stats = pid.map(ServerStats.init(pid:))
        startAt = MonotonicClock.nanoseconds()
        lastAt = startAt
        startCPU = stats?.cpuSeconds()
        lastCPU = startCPU
    }

    /// CPU % since the previous call (100 = one core busy).
    mutating func intervalCPU() -> Double? {
        let now = MonotonicClock.nanoseconds()
        guard let cpu = stats?.cpuSeconds(), let last = lastCPU else { return nil }
        defer { lastCPU = cpu; lastAt = now }
        let wall = Double(now - lastAt) / 1e9
        return wall > 0 ? (cpu - last) / wall * 100 : nil
    }

    /// CPU % since creation.
    func totalCPU() -> Double? {
        guard let cpu = stats?.cpuSeconds(), let start = startCPU else { return nil }
        let wall = Double(MonotonicClock.nanoseconds() - startAt) / 1e9
        return wall > 0 ? (cpu - start) / wall * 100 : nil
    }

    /// The server's, the generator's and the machine's fields for the result line.
    func resultFields() -> [String: Any] {
        var fields: [String: Any] = [:]
        if let cpu = totalCPU() { fields["server_cpu_pct"] = Report.round(cpu, 1) }
        let wall = Double(MonotonicClock.nanoseconds() - startAt) / 1e9
        if wall > 0 { fields["gen_cpu_pct"] = Report.round((Self.generatorCPUSeconds() - generatorStartCPU) / wall * 100, 1) }
        let machine = MachineCPUTimes().percents(since: machineStart)
        if !machine.busy.isEmpty {
            fields["cpu_busy_pct"] = machine.busy
            fields["steal_pct"] = machine.steal
        }
        if let memory = stats?.memoryKiB() {
            fields["server_rss_kib"] = memory.rss
            fields["server_peak_rss_kib"] = memory.peak
        }
        return fields
    }

    /// This process's user and system time (getrusage: microseconds, where /proc counts 10 ms ticks).
    private static func generatorCPUSeconds() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    func progressSuffix(cpu: Double?) -> String {
        var text = ""
        if let cpu { text += String(format: " srv_cpu=%.0f%%", cpu) }
        if let memory = stats?.memoryKiB() { text += " srv_rss=\(memory.rss / 1024)MiB" }
        return text
    }
}
