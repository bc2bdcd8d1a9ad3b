import ArgumentParser
import Foundation
import Glibc
import HeraldClock
import HeraldCommandLine

/// `herald-bench`: drives a running herald-server through the real /sync protocol (herald.v1) from one thread
/// and one epoll loop, and prints a progress line per second on stderr and a one-line JSON result on stdout.
/// Exit status 0 when nothing was lost or duplicated, 1 otherwise, 2 when the run could not be set up.
@main
struct HeraldBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald-bench",
        abstract: "Load generator for herald-server's /sync protocol (loopback only, bounded in time).",
        discussion: "Every option may also be given as an environment variable HERALD_<NAME> (e.g. HERALD_SERVER, HERALD_DURATION_SECONDS; "
            + "a repeatable option's values separated by commas); a flag wins over the variable.",
        subcommands: [FanoutCommand.self, ChatCommand.self, ConnectCommand.self, InsertCommand.self, CrowdCommand.self, HoldCommand.self]
    )

    /// Runs the scenario the arguments name, with a `HERALD_<NAME>` variable standing for each option not given.
    static func main() {
        main(EnvironmentOptions.arguments(Array(CommandLine.arguments.dropFirst()), for: Self.self, environment: ProcessInfo.processInfo.environment))
    }
}

/// Shared plumbing of the subcommands.
enum BenchRun {
    /// Prints the result line and exits 0 (clean) or 1 (lost or duplicated deliveries, dropped connections).
    static func finish(_ fields: [String: Any]) -> Never {
        Report.result(fields)
        let bad = (fields["lost"] as? Int ?? 0) + (fields["duplicated"] as? Int ?? 0) + (fields["unknown_deliveries"] as? Int ?? 0)
            + (fields["dropped_connections"] as? Int ?? 0) + (fields["unacked"] as? Int ?? 0) + (fields["failed"] as? Int ?? 0)
        exit(bad == 0 ? 0 : 1)
    }

    static func fail(_ scenario: String, _ error: any Error) -> Never {
        Report.progress("herald-bench \(scenario): \(error)")
        Report.result(["scenario": scenario, "error": "\(error)"])
        exit(2)
    }

    static func deadline(_ seconds: Double) -> UInt64 { MonotonicClock.nanoseconds() + UInt64(seconds * 1e9) }
}
