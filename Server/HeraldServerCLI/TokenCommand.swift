import ArgumentParser
import Foundation
import HeraldServer

/// `herald-server token <user>`: prints a token for `<user>`, creating the user. Works while a server runs on the
/// same store, and only on a store that exists (`serve` creates it).
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Print an access token for a user, creating the user.",
        discussion: "Uses ./herald.db of the current directory unless --db (or --store) says otherwise; the database must exist "
            + "(herald-server serve creates it), so run this where the server runs or pass its --db.")

    @Argument(help: "The user id.") var user: String
    @Option(help: "The display name.") var name: String?
    @OptionGroup var storeArguments: StoreArguments
    @OptionGroup var secretArguments: SecretArguments
    @Option(help: "Lifetime in seconds.") var ttlSeconds: Int = 30 * 24 * 3600

    func run() throws {
        let given = storeArguments.given + secretArguments.given
        let options = try SettingArguments.options(environment: ProcessInfo.processInfo.environment, given: given)
        if SettingArguments.givesSecret(given) {
            FileHandle.standardError.write(Data("warning: --secret is visible to every local user (ps); use --secret-file or HERALD_SECRET_FILE\n".utf8))
        }
        let location = StoreLocation(dbPath: options.dbPath, storeURL: options.store)
        print(try TokenIssuer.issue(opening: location.openExisting, user: user, name: name, secret: options.secret, ttlSeconds: ttlSeconds))
    }
}
