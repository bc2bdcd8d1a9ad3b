import ArgumentParser
import Glibc
import HeraldCommandLine
import HeraldClient
import HeraldProtocol
import HeraldRules

/// `herald`: the Herald client. Flags only; everything else is HeraldClient.
struct Herald: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald", abstract: "Herald chat client (interactive terminal, or JSON-line script mode with --script).",
        discussion: "Every option may also be given as an environment variable HERALD_<NAME> (e.g. HERALD_SERVER, HERALD_VIEWPORT); a flag wins over the variable.",
        version: "herald \(HeraldRelease.version) (protocol \(HeraldProtocolVersion.subprotocol))")

    @Option(help: "Server URL, ws://host:port (or wss://). Default: $HERALD_SERVER, else `server` in the config file ($XDG_CONFIG_HOME/herald/config, else ~/.config/herald/config).")
    var server: String?

    @Option(help: "Access token from `herald-server token`. Default: $HERALD_TOKEN.")
    var token: String?

    @Option(name: .customLong("token-file"), help: ArgumentHelp(
        "File holding the access token (trailing newline ignored); keeps it out of ps. Default: $HERALD_TOKEN_FILE, else `token-file` in the config file.", valueName: "path"))
    var tokenFile: String?

    @Flag(help: "Script mode: commands on stdin, one JSON object a line on stdout.")
    var script = false

    @Option(help: "Messages in the thread viewport.")
    var viewport: Int = 10

    @Option(help: "Toast duration in seconds (clamped to 1-10).")
    var toastDurationSeconds: Double = 3

    @Option(help: "A deep link to follow at start (herald://…).")
    var open: String?

    @Option(name: .customLong("ca-file"), help: "PEM file of the CA(s) to trust for wss:// instead of the system's store (a private CA).")
    var caFile: String?

    @Flag(help: "wss:// without checking the server's certificate (tests only: the traffic can be read and altered).")
    var insecure = false

    @Flag(name: .customLong("no-compression"), help: "Do not offer permessage-deflate to the server.")
    var noCompression = false

    @Option(help: "This device's name on the server (letters, digits, '.', '_', '-'); pushes and sign-outs name devices.")
    var device: String?

    @Option(help: "Be reachable while locked: 'webpush' makes a Web Push subscription whose endpoint this client serves on loopback.")
    var push: String?

    @Option(name: .customLong("push-port"), help: "Loopback port of the Web Push endpoint (0: any free port).")
    var pushPort: Int = 0

    @Flag(name: .customLong("no-color"), help: "Interactive terminal without colour (bold and reverse video stay); a non-empty NO_COLOR does the same.")
    var noColor = false

    // Not `--bell`: the Bell is the notification feed (Ctrl-B, `/bell`); this is the terminal's own BEL.
    @Flag(name: .customLong("terminal-bell"), help: "Interactive terminal: ring the terminal bell on a message that mentions you or a direct message, unless its thread is open, it is muted (a mention rings anyway) or quiet hours are on.")
    var terminalBell = false

    func validate() throws {
        guard viewport >= 1 else { throw ValidationError("--viewport must be at least 1") }
        // Any number is taken and clamped to 1-10 s as its help says (T2); only something that is no number is refused.
        guard !toastDurationSeconds.isNaN else { throw ValidationError("--toast-duration-seconds must be a number of seconds") }
        guard caFile == nil || !insecure else { throw ValidationError("--ca-file and --insecure exclude each other") }
        guard token == nil || tokenFile == nil else { throw ValidationError("--token and --token-file exclude each other") }
        if let push, push != "webpush" { throw ValidationError("--push takes 'webpush' (the only provider a terminal can be)") }
        guard (0...65535).contains(pushPort) else { throw ValidationError("--push-port must be 0...65535") }
        if let device, !Identifiers.isDeviceName(device) { throw ValidationError("--device must be \(Identifiers.deviceNameRule)") }
    }

    mutating func run() throws {
        let environment = ProcessInfoEnvironment()
        let serverGiven = server ?? environment["HERALD_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
        var tokenGiven = try givenToken(environment)
        // The config file fills in only what flags and variables left out (they override it); it is read only then,
        // so a broken file does not stand in the way of a command line that says everything.
        var config = ClientConfigFile()
        if serverGiven == nil || tokenGiven == nil {
            do {
                config = try ClientConfigFile.load { environment[$0] }
            } catch {
                throw ValidationError("\(error)")
            }
            if tokenGiven == nil, let file = config.tokenFile {
                do {
                    tokenGiven = try TokenFile.read(file)
                } catch {
                    throw ValidationError("\(error)")
                }
            }
        }
        guard let serverText = serverGiven ?? config.server, !serverText.isEmpty else {
            throw ValidationError("missing --server (or HERALD_SERVER, or server in the config file)")
        }
        guard let tokenText = tokenGiven, !tokenText.isEmpty else {
            throw ValidationError("missing --token or --token-file (or HERALD_TOKEN, HERALD_TOKEN_FILE, or token-file in the config file)")
        }
        let address: ServerAddress
        switch ServerAddress.parse(serverText) {
        case .success(let value): address = value
        case .failure(let error): throw ValidationError("--server: \(error)")
        }
        guard let user = TokenSubject.user(in: tokenText) else {
            // Refused like any token the server would refuse (exit 3), without asking it: no user can be read from it.
            ClientRunner.fail("the token is not a Herald token (it names no user): get one with `herald-server token <user>`")
            throw ExitCode(ClientExitCode.unauthorized.rawValue)
        }
        let interactive = !script && isatty(0) == 1
        var options = ClientOptions(
            server: address, token: tokenText, interactive: interactive, viewportSize: viewport,
            // Clamped to 1-10 s later anyway (T2); capping here keeps 1e300 from trapping in Int64(_:).
            toastDuration: Milliseconds(Int64((min(max(toastDurationSeconds, 1), 10) * 1000).rounded())), openURL: open, caFile: caFile, insecure: insecure,
            compression: !noCompression)
        var deviceName = device
        // A subscription belongs to a device that lasts: without --device, a name of its own for this process.
        if push != nil, deviceName == nil { deviceName = "\(user.prefix(40))-webpush-\(UInt32.random(in: 0...UInt32.max) % 1_000_000)" }
        options.deviceName = deviceName
        options.webPushPort = push == nil ? nil : pushPort
        // no-color.org: NO_COLOR set to anything but the empty string turns colour off, whatever its value.
        options.colour = !noColor && (environment["NO_COLOR"] ?? "").isEmpty
        options.terminalBell = terminalBell
        let code = ClientRunner(options: options, user: user).run()
        if code != 0 { throw ExitCode(code) }
    }
}

extension Herald {
    /// The token: a flag wins over the variables, and a token given itself over a file naming it.
    ///
    /// - Throws: `ValidationError` naming the file when a token file cannot be read (a bad flag: exit 2).
    func givenToken(_ environment: ProcessInfoEnvironment) throws -> String? {
        if let token { return token }
        let file: String?
        if let tokenFile {
            file = tokenFile
        } else if let token = environment["HERALD_TOKEN"], !token.isEmpty {
            return token
        } else {
            file = environment["HERALD_TOKEN_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let file else { return nil }
        do {
            return try TokenFile.read(file)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

/// Reads the environment without Foundation.
struct ProcessInfoEnvironment {
    subscript(name: String) -> String? { getenv(name).map { String(cString: $0) } }
}

// Bad flags exit 2 (argument-parser's validation default is 64), with the cause on one stderr line.
do {
    // Every option may come from HERALD_<NAME>; server, token and token-file are read in `run` (the config file
    // comes after them).
    let arguments = EnvironmentOptions.arguments(
        Array(CommandLine.arguments.dropFirst()), for: Herald.self, environment: EnvironmentOptions.processEnvironment(),
        except: ["server", "token", "token-file"])
    var command = try Herald.parseAsRoot(arguments)
    try command.run()
    exit(0)
} catch let code as ExitCode {
    exit(code.rawValue)
} catch {
    let code = Herald.exitCode(for: error)
    if code == .success {
        // --help and similar print to stdout and succeed.
        print(Herald.fullMessage(for: error))
        exit(0)
    }
    let message = Herald.message(for: error).split(separator: "\n").first.map(String.init) ?? "bad flags"
    ClientRunner.fail(message)
    exit(2)
}
