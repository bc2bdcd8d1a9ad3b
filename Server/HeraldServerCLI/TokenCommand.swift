import ArgumentParser
import Foundation
import HeraldServer

/// `herald-server token <user>`: prints a token for `<user>`, creating the user. Works while a server runs on the
/// same database.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Print an access token for a user, creating the user.")

    @Argument(help: "The user id.") var user: String
    @Option(help: "The display name.") var name: String?
    @Option(help: "SQLite database file. [env: HERALD_DB] (default: herald.db)") var db: String?
    @Option(help: "Shared PostgreSQL store (postgres://user@host:port/db) instead of --db. [env: HERALD_STORE]") var store: String?
    @Option(help: "File holding the token signing secret (mode 0600, one trailing newline ignored); default: the one stored in the database. [env: HERALD_SECRET_FILE]")
    var secretFile: String?
    @Option(help: "Token signing secret as an argument: visible in ps, prefer --secret-file. [env: HERALD_SECRET]") var secret: String?
    @Option(help: "Lifetime in seconds.") var ttl: Int = 30 * 24 * 3600

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        var options = try HeraldServerOptions(environment: environment)
        do {
            try options.settleSecret(flag: secret, fileFlag: secretFile)
        } catch let error as OptionsError {
            throw ValidationError("\(error)")
        }
        if secret != nil {
            FileHandle.standardError.write(Data("warning: --secret is visible to every local user (ps); use --secret-file or HERALD_SECRET_FILE\n".utf8))
        }
        let location = StoreLocation(dbPath: db ?? options.dbPath, storeURL: store ?? environment["HERALD_STORE"].flatMap({ $0.isEmpty ? nil : $0 }))
        print(try TokenIssuer.issue(opening: location.open, user: user, name: name, secret: options.secret, ttlSeconds: ttl))
    }
}
