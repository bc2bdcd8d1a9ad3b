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
    @Option(help: "Token signing secret; default: the one stored in the database. [env: HERALD_SECRET]") var secret: String?
    @Option(help: "Lifetime in seconds.") var ttl: Int = 30 * 24 * 3600

    func run() throws {
        let options = try HeraldServerOptions(environment: ProcessInfo.processInfo.environment)
        let token = try TokenIssuer.issue(dbPath: db ?? options.dbPath, user: user, name: name, secret: secret ?? options.secret, ttlSeconds: ttl)
        print(token)
    }
}
