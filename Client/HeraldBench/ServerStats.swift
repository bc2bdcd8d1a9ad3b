import Foundation
import Glibc

/// The server process's CPU time and memory from /proc/PID (when `--server-pid` is given).
struct ServerStats {
    let pid: Int32

    /// utime + stime in seconds (fields 14 and 15 of /proc/PID/stat).
    func cpuSeconds() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After "pid (comm)", field 3 (state) is index 0, so utime (14) is index 11 and stime (15) index 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// VmRSS and VmHWM in KiB.
    func memoryKiB() -> (rss: Int, peak: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        var rss = 0
        var peak = 0
        for line in status.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count >= 2 else { continue }
            if parts[0] == "VmRSS:" { rss = Int(parts[1]) ?? 0 }
            if parts[0] == "VmHWM:" { peak = Int(parts[1]) ?? 0 }
        }
        return (rss, peak)
    }
}
