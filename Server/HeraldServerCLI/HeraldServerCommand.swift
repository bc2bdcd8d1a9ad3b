import ArgumentParser
import HeraldProtocol
import HeraldServer

/// `herald-server`: the Herald sync server. Commands are types (E11): `serve` (default) and `token`.
@main
struct HeraldServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald-server",
        abstract: "The Herald realtime sync server.",
        version: "herald-server \(HeraldRelease.version) (protocol \(HeraldProtocolVersion.subprotocol))",
        subcommands: [ServeCommand.self, TokenCommand.self, APIKeyCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
