import ArgumentParser
import Foundation
import HeraldCommandLine
import HeraldProtocol
import HeraldServer

/// `herald-server`: the Herald sync server. Commands are types: `serve` (default), `token` and `apikey`.
@main
struct HeraldServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald-server",
        abstract: "The Herald realtime sync server.",
        // `herald-server [settings]` runs `serve`, so the top-level help lists serve's settings too.
        discussion: "Commands: serve (the default), token, apikey; see SUBCOMMANDS at the end. With no command, runs serve: "
            + "herald-server --port 9000 is herald-server serve --port 9000, so serve's settings below are the program's.\n\n"
            + SettingArguments.settingsDiscussion,
        version: "herald-server \(HeraldRelease.version) (protocol \(HeraldProtocolVersion.subprotocol))",
        subcommands: [ServeCommand.self, TokenCommand.self, APIKeyCommand.self],
        defaultSubcommand: ServeCommand.self
    )

    /// Runs the command the arguments name, after two rewrites: a former setting name (`--push-grace`) becomes its
    /// name now, with a warning; and for `token` and `apikey`, whose own options are not settings, a `HERALD_<NAME>`
    /// variable stands for each option not given (serve and the store options read their variables from the table).
    static func main() {
        let (arguments, warnings) = HeraldServerOptions.renamingFormerFlags(Array(CommandLine.arguments.dropFirst()))
        for warning in warnings { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
        let tableOptions = Set(HeraldServerOptions.settings.map(\.name))
        let command = EnvironmentOptions.selectedCommand(Self.self, arguments)
        let readsTable = [ObjectIdentifier(ServeCommand.self), ObjectIdentifier(Self.self)].contains(ObjectIdentifier(command))
        let withVariables = readsTable
            ? arguments
            : EnvironmentOptions.arguments(arguments, for: Self.self, environment: ProcessInfo.processInfo.environment, except: tableOptions)
        main(withVariables)
    }
}
