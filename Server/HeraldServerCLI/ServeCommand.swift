import ArgumentParser
import Foundation
import HeraldPush
import HeraldServer
import Logging

/// `herald-server serve`: reads the settings (defaults, then HERALD_* variables, then flags, as the settings table
/// declares them) and runs the server.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server until SIGINT/SIGTERM (the default command).",
        discussion: SettingArguments.environmentDiscussion
    )

    @OptionGroup var settings: ServeArguments

    /// Defaults, then environment, then flags; then the secret and the /metrics token read from their files, and the
    /// whole checked.
    func makeOptions(environment: [String: String], given: [(ServerSetting, String)]) throws -> HeraldServerOptions {
        var options = try SettingArguments.options(environment: environment, given: given)
        do {
            try options.settleMetricsToken(fileFlag: nil)
        } catch {
            throw ValidationError("metrics token: \(error)")
        }
        do {
            try options.validate()
        } catch {
            throw ValidationError("\(error)")
        }
        return options
    }

    func run() throws {
        let given = try settings.given()
        let options = try makeOptions(environment: ProcessInfo.processInfo.environment, given: given)
        let level = options.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "herald-server")
        if SettingArguments.givesSecret(given) {
            logger.warning("--secret is visible to every local user (ps, /proc/<pid>/cmdline); use --secret-file or HERALD_SECRET_FILE")
        }
        // A file-size limit (RLIMIT_FSIZE) or quota must turn into EFBIG on the write, which the store reports as a
        // failed commit (senders get `unavailable`), not a SIGXFSZ that kills every connection.
        signal(SIGXFSZ, SIG_IGN)
        HeraldHTTPServer.raiseOpenFileLimit()
        let server = HeraldHTTPServer(options: options, logger: logger)
        let (sync, gateway) = try startSyncService(options: options, server: server, logger: logger)
        try server.start()
        // Written unbuffered: tests and scripts wait for this exact line to learn the port (the TLS line comes first).
        let tlsLine = server.tlsBoundPort.map { "herald-server tls listening on \(options.host):\($0)\n" } ?? ""
        FileHandle.standardOutput.write(Data("\(tlsLine)herald-server listening on \(options.host):\(server.boundPort)\n".utf8))
        server.runUntilShutdown()
        sync.shutdown()
        gateway?.stop()
    }
}
