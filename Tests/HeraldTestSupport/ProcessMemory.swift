import Foundation

/// What a running process holds in memory, from /proc (the servers and load generators tests start).
public enum ProcessMemory {
    /// VmRSS of `pid` in KiB, from /proc/<pid>/status; 0 when it cannot be read.
    public static func residentKiB(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
