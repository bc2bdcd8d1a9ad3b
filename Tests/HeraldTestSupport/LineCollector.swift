import Foundation
import Glibc
import Synchronization

/// Reads a descriptor (a child's stdout or stderr) on its own thread and keeps every line, so waits can scan
/// everything printed so far. Owns the descriptor and closes it at end of file.
public final class LineCollector: Sendable {
    private let state = Mutex<(lines: [String], partial: [UInt8], closed: Bool)>(([], [], false))

    /// Starts reading `descriptor` (taking ownership of it).
    public init(descriptor: Int32) {
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                append(buffer[0..<count])
            }
            close(descriptor)
            state.withLock { $0.closed = true }
        }
    }

    private func append(_ bytes: ArraySlice<UInt8>) {
        state.withLock { state in
            for byte in bytes {
                if byte == UInt8(ascii: "\n") {
                    state.lines.append(String(decoding: state.partial, as: UTF8.self))
                    state.partial.removeAll(keepingCapacity: true)
                } else {
                    state.partial.append(byte)
                }
            }
        }
    }

    /// Every complete line so far.
    public var lines: [String] { state.withLock { $0.lines } }
    /// True once the writer closed its end (the process ended).
    public var closed: Bool { state.withLock { $0.closed } }

    /// Waits until `find` returns a value for the lines so far; throws at the deadline or when the output closed
    /// without a match. `context` adds to the failure message (e.g. the process's stderr).
    public func wait<T>(_ what: String, timeout: Duration, context: () -> String = { "" }, _ find: ([String]) -> T?) throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (snapshot, isClosed) = state.withLock { ($0.lines, $0.closed) }
            if let found = find(snapshot) { return found }
            if ContinuousClock.now >= deadline || isClosed {
                throw ProcessHarnessError("\(isClosed ? "output closed" : "timed out") waiting for \(what)\nstdout:\n"
                    + snapshot.suffix(30).joined(separator: "\n") + context())
            }
            usleep(5_000)
        }
    }
}
