import Foundation

/// Where the built Herald executables (`herald-server`, `herald`, `herald-bench`) are, for every test target.
///
/// `$HERALD_BIN_DIR` when set, otherwise `<package>/.build/debug`, the package found from this file's `#filePath`:
/// the tests build nothing themselves, they run what `swift build` made. This is the one place that decides it.
public enum HeraldBinaries {
    /// The directory holding the executables.
    public static let directory: URL = locate(fromSupportFile: #filePath)

    /// The path of the executable `name` in ``directory``.
    public static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// `herald-server`.
    public static var server: String { path("herald-server") }
    /// `herald`, the client.
    public static var client: String { path("herald") }
    /// `herald-bench`, the load generator.
    public static var bench: String { path("herald-bench") }

    /// `$HERALD_BIN_DIR`, else `<package>/.build/debug` for `supportFile`, a file directly in Tests/HeraldTestSupport.
    static func locate(fromSupportFile supportFile: String) -> URL {
        if let directory = ProcessInfo.processInfo.environment["HERALD_BIN_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory)
        }
        // <package>/Tests/HeraldTestSupport/<file>.swift
        let packageRoot = URL(fileURLWithPath: supportFile).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent(".build/debug")
    }
}

/// A failure of the process harness (a deadline passed, a process did not start or failed), with what was seen.
public struct ProcessHarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
