import ArgumentParser
import Foundation
import HeraldServer

/// `herald-server apikey create [--name N] [--db path]`: keys for the backend HTTP API (/api/v1).
struct APIKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apikey", abstract: "Manage keys of the backend HTTP API (/api/v1).", subcommands: [Create.self])

    /// Prints a new key once; only its SHA-256 is stored.
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create an API key and print it. It is stored hashed and cannot be shown again; works while a server runs on the same database.")

        @Option(help: "A label for the key.") var name: String = "default"
        @Option(help: "SQLite database file. [env: HERALD_DB] (default: herald.db)") var db: String?

        func run() throws {
            let options = try HeraldServerOptions(environment: ProcessInfo.processInfo.environment)
            print(try APIKey.create(dbPath: db ?? options.dbPath, name: name))
        }
    }
}
