import Foundation

/// Each CPU's busy, total and steal time from /proc/stat, so a result can say how much of the run the hypervisor took
/// away (steal) and how busy each CPU was, as wsbench reports it: on a shared virtual machine a run with steal is
/// not comparable with one without.
struct MachineCPUTimes {
    struct Times {
        var busy: UInt64 = 0
        var total: UInt64 = 0
        var steal: UInt64 = 0
    }

    /// By CPU number; empty when /proc/stat cannot be read.
    let cpus: [Times]

    init() {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else {
            cpus = []
            return
        }
        var cpus: [Times] = []
        for line in text.split(separator: "\n") where line.hasPrefix("cpu") {
            let fields = line.split(separator: " ")
            // "cpuN user nice system idle iowait irq softirq steal ..."; the machine-wide "cpu" line has no number.
            guard let id = Int(fields[0].dropFirst(3)), id >= 0, id < 1024, fields.count >= 9 else { continue }
            let values = fields[1...8].map { UInt64($0) ?? 0 }
            let total = values.reduce(0, +)
            if cpus.count <= id { cpus += Array(repeating: Times(), count: id + 1 - cpus.count) }
            cpus[id] = Times(busy: total - values[3] - values[4], total: total, steal: values[7])
        }
        self.cpus = cpus
    }

    /// Per CPU, busy and steal as % of its time since `start`.
    func percents(since start: MachineCPUTimes) -> (busy: [Double], steal: [Double]) {
        var busy: [Double] = []
        var steal: [Double] = []
        for (now, then) in zip(cpus, start.cpus) {
            let elapsed = Double(now.total &- then.total)
            busy.append(elapsed > 0 ? Report.round(Double(now.busy &- then.busy) / elapsed * 100, 0) : 0)
            steal.append(elapsed > 0 ? Report.round(Double(now.steal &- then.steal) / elapsed * 100, 0) : 0)
        }
        return (busy, steal)
    }
}
