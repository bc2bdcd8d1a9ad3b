import ArgumentParser
import Foundation
import HeraldServer
import HeraldStore

/// `herald-server apikey create|list|revoke`: keys of the backend HTTP API (/api/v1), in the SQLite file (`--db`) or
/// the shared PostgreSQL store (`--store`). Every subcommand works while servers run on the same store: a server reads
/// a key's row on each request.
struct APIKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apikey", abstract: "Manage keys of the backend HTTP API (/api/v1).",
        discussion: "Uses ./herald.db of the current directory unless --db (or --store) says otherwise; the database must exist "
            + "(herald-server serve creates it).",
        subcommands: [Create.self, List.self, Revoke.self])

    /// `--db` or `--store`, falling back to HERALD_DB/HERALD_STORE and then the default.
    struct DatabaseOption: ParsableArguments {
        @OptionGroup var store: StoreArguments

        func location() throws -> StoreLocation {
            let options = try SettingArguments.options(environment: ProcessInfo.processInfo.environment, given: store.given, readingSecret: false)
            return StoreLocation(dbPath: options.dbPath, storeURL: options.store)
        }
    }

    /// Prints a new key once; only its SHA-256 is stored.
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create an API key and print it. It is stored hashed and cannot be shown again; its id is the 16 hex digits after hk_.")

        @Option(help: "A label for the key.") var name: String = "default"
        @Option(help: "read (GET endpoints only) or full (everything, including writes and minting tokens).") var scope: String = "full"
        @Option(help: "Seconds until the key stops working (1...\(APIKey.maxLifetimeSeconds)); default: never.") var ttlSeconds: Int64?
        @OptionGroup var database: DatabaseOption

        func validate() throws {
            guard APIKeyScope(rawValue: scope) != nil else { throw ValidationError("--scope must be read or full, not \(scope)") }
            if let ttlSeconds, !(1...APIKey.maxLifetimeSeconds).contains(ttlSeconds) {
                throw ValidationError("\(APIKeyError.badLifetime(ttlSeconds))")
            }
        }

        func run() throws {
            let scope = APIKeyScope(rawValue: scope) ?? .read
            let store = try database.location().openExisting()
            defer { store.close() }
            print(try APIKey.create(in: store, name: name, scope: scope, expiresInSeconds: ttlSeconds))
        }
    }

    /// Prints every key's id, name, scope and times; never a key or its hash.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List API keys: id, name, scope, created, expires, revoked (UTC). Keys themselves are never shown.")

        @OptionGroup var database: DatabaseOption

        func run() throws {
            let store = try database.location().openExisting()
            defer { store.close() }
            print(APIKey.listing(try APIKey.list(in: store)))
        }
    }

    /// Revokes a key by id; a running server refuses it from its next request on.
    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Revoke an API key by its id; a server on the same store refuses it at once.")

        @Argument(help: "The key's id (16 hex digits, as `apikey list` shows it).") var id: String
        @OptionGroup var database: DatabaseOption

        func run() throws {
            let store = try database.location().openExisting()
            defer { store.close() }
            let record = try APIKey.revoke(in: store, id: id)
            print("revoked \(record.id)")
        }
    }
}
