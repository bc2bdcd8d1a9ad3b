import Foundation
import Synchronization
import Testing

/// Where the built `herald-server` and `herald` binaries are: `HERALD_BIN_DIR`, else `<package>/.build/debug`.
enum Binaries {
    static let directory: URL = {
        if let dir = ProcessInfo.processInfo.environment["HERALD_BIN_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir)
        }
        // This file is <package>/Tests/HeraldEndToEndTests/Support/Processes.swift.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug")
    }()

    static var server: URL { directory.appendingPathComponent("herald-server") }
    static var client: URL { directory.appendingPathComponent("herald") }
}

/// A failure of the harness itself (a process that did not start, a deadline that passed), with what was seen.
struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Collects a pipe's output as lines on a background thread, so waits can scan everything seen so far.
final class LineCollector: Sendable {
    private let state = Mutex<(lines: [String], partial: [UInt8], closed: Bool)>(([], [], false))

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                self.append(data)
            }
            self.state.withLock { $0.closed = true }
        }
        thread.start()
    }

    private func append(_ data: Data) {
        state.withLock { state in
            for byte in data {
                if byte == UInt8(ascii: "\n") {
                    state.lines.append(String(decoding: state.partial, as: UTF8.self))
                    state.partial.removeAll(keepingCapacity: true)
                } else {
                    state.partial.append(byte)
                }
            }
        }
    }

    /// Every complete line seen so far.
    var lines: [String] { state.withLock { $0.lines } }
    /// True once the writer closed the pipe.
    var closed: Bool { state.withLock { $0.closed } }

    /// Waits until `find` returns a value for the lines seen so far, or the deadline passes.
    func wait<T>(timeout: Duration, what: String, _ find: ([String]) -> T?) throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (snapshot, isClosed) = state.withLock { ($0.lines, $0.closed) }
            if let found = find(snapshot) { return found }
            if ContinuousClock.now >= deadline || isClosed {
                let tail = snapshot.suffix(15).joined(separator: "\n")
                throw HarnessError("\(isClosed ? "output closed" : "timed out") waiting for \(what); last lines:\n\(tail)")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}

/// A temporary directory removed when the value is released.
final class TemporaryDirectory: Sendable {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("herald-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Runs a process to completion and returns its exit status and standard output.
@discardableResult
func runToCompletion(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}
