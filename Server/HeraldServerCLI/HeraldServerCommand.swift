import ArgumentParser
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
}
