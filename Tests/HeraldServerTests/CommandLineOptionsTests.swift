import Foundation
import HeraldServer
import HeraldTestSupport
import Testing

/// The three executables' options as a user meets them: the built binaries, their declared options (ArgumentParser's
/// `--experimental-dump-help`), the README's option table and the `HERALD_*` variables.
@Suite("Command line: one option table for herald-server, herald and herald-bench")
struct CommandLineOptionsTests {
    /// One option of one command, as a binary declares it.
    struct DeclaredOption: Hashable, CustomStringConvertible {
        /// The command path, e.g. `herald-bench fanout`.
        var command: String
        /// The long name without dashes, e.g. `duration-seconds`.
        var name: String
        var description: String { "\(command) --\(name)" }
    }

    /// Every long option of every command of `binary`, read from the binary's own `--experimental-dump-help`.
    static func declaredOptions(_ binary: String) throws -> [DeclaredOption] {
        let run = try runToCompletion(binary, ["--experimental-dump-help"], timeout: .seconds(30))
        guard run.status == 0, let root = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any],
              let command = root["command"] as? [String: Any]
        else { throw ProcessHarnessError("\(binary) --experimental-dump-help: \(run.status) \(run.standardError)") }
        return options(of: command, path: [])
    }

    private static func options(of command: [String: Any], path: [String]) -> [DeclaredOption] {
        let path = path + [command["commandName"] as? String ?? "?"]
        let arguments = command["arguments"] as? [[String: Any]] ?? []
        let own = arguments.flatMap { argument -> [DeclaredOption] in
            guard ["option", "flag"].contains(argument["kind"] as? String), argument["shouldDisplay"] as? Bool != false else { return [] }
            let names = (argument["names"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "long" }
            // `--help` and `--version` are ArgumentParser's own; an inverted flag's `--no-` name shares its row.
            return names.compactMap { $0["name"] as? String }
                .filter { !["help", "version"].contains($0) }
                .prefix(1)
                .map { DeclaredOption(command: path.joined(separator: " "), name: $0) }
        }
        // `--no-name` beside `--name` is one toggle, one row.
        let toggles = own.filter { option in option.name.hasPrefix("no-") && own.contains { $0.name == option.name.dropFirst(3) } }
        let subcommands = command["subcommands"] as? [[String: Any]] ?? []
        return own.filter { !toggles.contains($0) } + subcommands.flatMap { options(of: $0, path: path) }
    }

    /// One row of the README's option table.
    struct TableRow {
        /// The command paths the row covers; `herald-bench *` is every scenario of herald-bench.
        var commands: [String]
        /// The option's name without dashes (for a toggle, the name without `no-`).
        var name: String
        var variable: String

        func covers(_ option: DeclaredOption) -> Bool {
            guard option.name == name else { return false }
            return commands.contains { command in
                command.hasSuffix(" *") ? option.command.hasPrefix(command.dropLast(1)) : option.command == command
            }
        }
    }

    /// The rows of README.md's `## Options` section: `| commands | --option | HERALD_VARIABLE | default | meaning |`.
    static func readmeRows(filePath: String = #filePath) throws -> [TableRow] {
        let readme = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let start = text.range(of: "\n## Options\n") else { throw ProcessHarnessError("README.md has no ## Options section") }
        let section = text[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        return section[..<end].split(separator: "\n").compactMap { line -> TableRow? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[1].hasPrefix("`herald") else { return nil }
            let commands = cells[1].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
            // The first `--name` of the cell: a toggle's `--no-name` and a short `-n` follow it.
            let flag = cells[2].split(separator: "`").first { $0.hasPrefix("--") }.map { String($0.dropFirst(2)) } ?? ""
            return TableRow(commands: commands, name: flag, variable: cells[3].trimmingCharacters(in: CharacterSet(charactersIn: "`")))
        }
    }

    @Test("README's option table has a row for every option of herald-server, herald and herald-bench, each with its HERALD_* variable, and no row for an option that no longer exists")
    func readmeTableMatchesTheBinaries() throws {
        let rows = try Self.readmeRows()
        let declared = try [HeraldBinaries.server, HeraldBinaries.client, HeraldBinaries.bench].flatMap(Self.declaredOptions)
        #expect(declared.contains(DeclaredOption(command: "herald-server serve", name: "port")), "dump-help read: \(declared.prefix(5))")
        for option in declared {
            let matching = rows.filter { $0.covers(option) }
            #expect(!matching.isEmpty, "README.md ## Options lacks \(option)")
            for row in matching {
                let expected = "HERALD_" + option.name.uppercased().replacingOccurrences(of: "-", with: "_")
                #expect(row.variable == expected, "\(option): README says \(row.variable), the binary reads \(expected)")
            }
        }
        for row in rows where !declared.contains(where: row.covers) {
            Issue.record("README.md ## Options lists --\(row.name) for \(row.commands), which no such command declares")
        }
    }

    @Test("Every server setting (flag, variable, help) is an option serve declares, and nothing else is")
    func serveDeclaresExactlyTheSettings() throws {
        let serve = Set(try Self.declaredOptions(HeraldBinaries.server).filter { $0.command == "herald-server serve" }.map(\.name))
        #expect(serve == Set(HeraldServerOptions.settings.map(\.name)))
    }

    @Test("`herald-server serve --prot 80` is refused with a suggestion of --port (serve's options are ArgumentParser's)")
    func misspeltOptionSuggestsTheNearestName() throws {
        let run = try runToCompletion(HeraldBinaries.server, ["serve", "--prot", "80"], timeout: .seconds(30))
        #expect(run.status != 0)
        #expect(run.standardError.contains("'--prot'") && run.standardError.contains("Did you mean '--port'?"), "\(run.standardError)")
    }

    @Test("A setting's former name (before names said their units) still works, with a warning naming the new one")
    func formerNameIsStillAccepted() throws {
        // A database in a missing folder: the settings are read and checked, then opening the store fails.
        let run = try runToCompletion(
            HeraldBinaries.server, ["serve", "--push-grace", "2", "--port", "0", "--db", "/nonexistent-herald-dir/herald.db"], timeout: .seconds(30))
        #expect(run.standardError.contains("warning: --push-grace is now --push-grace-seconds"), "\(run.standardError)")
        #expect(!run.standardError.contains("Unknown option"), "\(run.standardError)")
        var options = try HeraldServerOptions(environment: ["HERALD_PUSH_GRACE": "7"])
        #expect(options.pushGraceSeconds == 7)
        options = try HeraldServerOptions(environment: ["HERALD_PUSH_GRACE": "7", "HERALD_PUSH_GRACE_SECONDS": "3"])
        #expect(options.pushGraceSeconds == 3, "the name now wins over the former one")
    }

    @Test("herald-bench reads HERALD_<NAME> for an option not given (HERALD_SERVER, read as --server, is checked like the flag); the flag wins")
    func benchReadsEveryOptionFromTheEnvironment() throws {
        let fromVariable = try runToCompletion(
            HeraldBinaries.bench, ["connect", "--secret", "s", "--quiet"], environment: ["HERALD_SERVER": "ws://192.0.2.1:9"], timeout: .seconds(30))
        #expect(fromVariable.status != 0 && fromVariable.standardError.contains("--server must be ws://127.0.0.1:PORT"), "\(fromVariable.standardError)")
        // A variable the flag overrides is never read: HERALD_DURATION_SECONDS=x alone is refused (below), beside the flag
        // the run gets as far as the server check.
        let flagWins = try runToCompletion(
            HeraldBinaries.bench, ["connect", "--secret", "s", "--quiet", "--duration-seconds", "1"],
            environment: ["HERALD_SERVER": "ws://192.0.2.1:9", "HERALD_DURATION_SECONDS": "x"], timeout: .seconds(30))
        #expect(flagWins.standardError.contains("--server must be") && !flagWins.standardError.contains("'x'"), "\(flagWins.standardError)")
        // A short flag wins too: -d 5 over HERALD_DEVICES=0 (which alone is refused as bad --devices).
        let shortFlagWins = try runToCompletion(
            HeraldBinaries.bench, ["connect", "--secret", "s", "--quiet", "-d", "5"],
            environment: ["HERALD_SERVER": "ws://192.0.2.1:9", "HERALD_DEVICES": "0"], timeout: .seconds(30))
        #expect(shortFlagWins.standardError.contains("--server must be") && !shortFlagWins.standardError.contains("--devices"), "\(shortFlagWins.standardError)")
        let devicesRefused = try runToCompletion(
            HeraldBinaries.bench, ["connect", "--secret", "s", "--quiet"], environment: ["HERALD_DEVICES": "0"], timeout: .seconds(30))
        #expect(devicesRefused.status != 0 && devicesRefused.standardError.contains("--devices"), "\(devicesRefused.standardError)")
        let refused = try runToCompletion(
            HeraldBinaries.bench, ["connect", "--secret", "s", "--quiet"], environment: ["HERALD_DURATION_SECONDS": "x"], timeout: .seconds(30))
        #expect(refused.status != 0 && refused.standardError.contains("--duration-seconds"), "\(refused.standardError)")
    }

    @Test("herald reads HERALD_<NAME> for every option (HERALD_VIEWPORT=0 is refused like --viewport 0); the flag wins over it")
    func clientReadsEveryOptionFromTheEnvironment() throws {
        let base = ["--server", "ws://127.0.0.1:1", "--token", "a.eyJzdWIiOiJhIn0.b", "--script"]
        let refused = try runToCompletion(HeraldBinaries.client, base, environment: ["HERALD_VIEWPORT": "0"], timeout: .seconds(30))
        #expect(refused.status == 2 && refused.standardError.contains("--viewport must be at least 1"), "\(refused.standardError)")
        let flagWins = try runToCompletion(HeraldBinaries.client, base + ["--viewport", "5"], environment: ["HERALD_VIEWPORT": "0"], timeout: .seconds(30))
        #expect(flagWins.status == 4, "unreachable server, flags accepted: \(flagWins.status) \(flagWins.standardError)")
    }
}
