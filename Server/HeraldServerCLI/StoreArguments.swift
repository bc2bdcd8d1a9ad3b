import ArgumentParser
import HeraldServer

/// `--db` and `--store`, for the commands besides `serve` that open the store (`token`, `apikey`); their help,
/// variables and checks are the settings table's.
struct StoreArguments: ParsableArguments {
    @Option(help: SettingArguments.help("db")) var db: String?
    @Option(help: SettingArguments.help("store")) var store: String?

    /// The flags given, as settings to apply after the variables.
    var given: [(ServerSetting, String)] { SettingArguments.given([("db", db), ("store", store)]) }
}

/// `--secret-file` and `--secret`, for `token` (`serve` reads them with every other setting).
struct SecretArguments: ParsableArguments {
    @Option(help: SettingArguments.help("secret-file")) var secretFile: String?
    @Option(help: SettingArguments.help("secret")) var secret: String?

    /// The flags given, as settings to apply after the variables.
    var given: [(ServerSetting, String)] { SettingArguments.given([("secret-file", secretFile), ("secret", secret)]) }
}
