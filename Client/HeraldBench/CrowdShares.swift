import Foundation
import Glibc
import HeraldClock

/// The other processes of a crowd: `hold` children of this same executable, each connecting and keeping one share of
/// the devices, so that the crowd is not bounded by one process's open-file limit. Each child says on stdout when its
/// share is synced and, once its stdin is closed, whether every device stayed connected. When this process exits, the
/// children's stdin ends and they close their devices and exit too.
final class CrowdShares {
    private struct Child {
        let first: Int
        let process: Process
        let input: FileHandle
        let outputFD: Int32
        var buffer: [UInt8] = []
        /// The JSON lines the child printed, in order.
        var lines: [[String: Any]] = []
        var outputEnded = false
    }

    private var children: [Child] = []

    /// The shares' sizes, one child per share; `arguments(first, count)` gives a child's command line after `hold`.
    init(shares: [(first: Int, count: Int)], arguments: (Int, Int) -> [String]) throws(BenchError) {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        for share in shares {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["hold"] + arguments(share.first, share.count)
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            do { try process.run() } catch {
                terminate()
                throw BenchError("cannot start \(executable.path) hold: \(error)")
            }
            let outputFD = output.fileHandleForReading.fileDescriptor
            _ = fcntl(outputFD, F_SETFL, fcntl(outputFD, F_GETFL) | O_NONBLOCK)
            children.append(Child(first: share.first, process: process, input: input.fileHandleForWriting, outputFD: outputFD))
        }
    }

    /// Whether every child has said its share is synced; fails when one exited or reported an error first.
    func ready() throws(BenchError) -> Bool {
        readAvailable()
        var all = true
        for child in children {
            if let error = child.lines.lazy.compactMap({ $0["error"] as? String }).first {
                throw BenchError("the share from device \(child.first) failed: \(error)")
            }
            if child.lines.contains(where: { $0["ready"] as? Bool == true }) { continue }
            if child.outputEnded || !child.process.isRunning {
                throw BenchError("the share from device \(child.first) exited before its devices were synced")
            }
            all = false
        }
        return all
    }

    /// Each child's "ready" line (its connect time and latency).
    func readyLines() -> [[String: Any]] {
        children.compactMap { child in child.lines.first(where: { $0["ready"] as? Bool == true }) }
    }

    /// Closes every child's stdin, waits up to `seconds` for each to exit and returns their last lines (a child that
    /// printed none, or did not exit, gets an `error` line saying so).
    func stop(seconds: Double) -> [[String: Any]] {
        for child in children { try? child.input.close() }
        let until = BenchRun.deadline(seconds)
        while children.contains(where: { $0.process.isRunning }) && MonotonicClock.nanoseconds() < until { usleep(10_000) }
        readAvailable()
        return children.map { child in
            if child.process.isRunning {
                child.process.terminate()
                return ["first": child.first, "error": "did not exit within \(seconds) s of its stdin closing"]
            }
            guard let last = child.lines.last, last["ready"] == nil else {
                return ["first": child.first, "error": "exited \(child.process.terminationStatus) without a final line"]
            }
            return last
        }
    }

    /// Ends every child at once (setup failed).
    func terminate() {
        for child in children where child.process.isRunning { child.process.terminate() }
    }

    private func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        for index in children.indices where !children[index].outputEnded {
            while true {
                let count = read(children[index].outputFD, &chunk, chunk.count)
                if count > 0 {
                    children[index].buffer += chunk[0..<count]
                    continue
                }
                if count == 0 || (errno != EAGAIN && errno != EINTR) { children[index].outputEnded = true }
                break
            }
            while let newline = children[index].buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(children[index].buffer[..<newline])
                children[index].buffer.removeSubrange(...newline)
                if let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] {
                    children[index].lines.append(object)
                }
            }
        }
    }
}
