import Glibc
import HeraldClock
import HeraldDeflate
import HeraldProtocol
import HeraldRules
import HeraldTLS

/// Where the core's typed answers and events go and where typed commands come from: script mode (stdin lines parsed
/// into commands, answers and events written as JSON lines), the interactive terminal, or an app embedding the
/// client (HeraldKit).
package protocol ClientFrontEnd: AnyObject {
    /// The descriptor the loop polls for input: stdin, or the wake-up pipe of an embedding app.
    var inputDescriptor: Int32 { get }
    /// Bytes read from ``inputDescriptor``; returns the complete inputs, in order.
    func input(_ bytes: ArraySlice<UInt8>) -> [ClientInput]
    /// Stdin ended (script) or the user asked to leave (interactive).
    var inputEnded: Bool { get }
    /// The answer to a command, in command order.
    func answer(_ answer: CommandAnswer)
    /// Something that happened by itself.
    func event(_ event: ClientEvent)
    /// Redraws the screen if the front end has one.
    func render(_ core: ClientCore, now: Instant)
    /// The next instant the front end wants to redraw (toast countdown), if any.
    func nextRedraw(now: Instant) -> Instant?
    /// Restores the terminal.
    func finish()
    /// Commands the front end runs by itself after an answer it printed (e.g. open the conversation `/dm` made).
    func takeFollowUps() -> [ClientInput]
    /// A diagnostic: stderr in script mode; the terminal keeps its screen clean.
    func log(_ text: String)
    /// The connection's state changed (shown on the terminal's status line).
    func connectionChanged(_ status: ConnectionStatus)
    /// The thread area of the screen, when there is one; the viewport is sized to it.
    func geometry() -> ScreenGeometry?
    /// Whether the composer is empty, when its text changed since the last call (E1: typing is reported from it); nil
    /// when it did not change or there is no composer.
    func takeComposerChange() -> Bool?
    /// A fatal line (refused token, unusable flags): stderr for the command-line client.
    func fail(_ text: String)
    /// The server stored the send with this clientMessageId (its `message` event says so to a script).
    func stored(clientMessageId: String, message: String)
}

extension ClientFrontEnd {
    package var inputDescriptor: Int32 { 0 }
    package func stored(clientMessageId: String, message: String) {}
    package func fail(_ text: String) { ClientRunner.fail(text) }
}

/// One input for the core, in the order it came.
package enum ClientInput: Sendable, Equatable {
    /// A command; its answer follows in command order.
    case command(ClientCommand)
    /// A script line that is no command: its error answer follows in command order, as a command's would.
    case unreadable(ScriptCommandError)
    /// A message with the id it keeps across retries and restarts (R4): an app's pending message. It takes no command
    /// slot and has no answer: its `message` event (or `send.failed`) follows.
    case send(conversation: String, clientMessageId: String, text: String?, imageURL: String?)
}

/// The client's IO: one thread, one poll() over stdin and the socket, a timeout at the next deadline of the
/// toast manager, the router, `sleep`, reconnect backoff or handshake. The clock is read here only.
///
/// Bytes flow socket ⇄ ``ClientTransport`` (TLS for `wss://`) ⇄ ``ClientWebSocket`` (handshake, framing,
/// permessage-deflate) ⇄ ``ClientCore``.
public final class ClientRunner {
    private let options: ClientOptions
    private var core: ClientCore
    private let frontEnd: any ClientFrontEnd

    private var transport: (any ClientByteStream)?
    private var webSocket: ClientWebSocket?
    /// The trust setting for `wss://`, made once at start (nil for `ws://`).
    private var tlsContext: TLSContext?
    private var connecting = false
    private var handshakeDeadline: Instant?
    private var reconnectAt: Instant?
    private var backoff = ReconnectBackoff()
    /// Once a connection got through, failures reconnect instead of exiting 4.
    private var everOpened = false
    /// When the current connection opened; nil while none is open.
    private var openedAt: Instant?
    /// How long a connection must last for the next reconnect to start from the shortest delay again.
    static let healthyConnection = Milliseconds.seconds(10)
    private var pendingLines: [ClientInput] = []
    private var readBuffer = [UInt8](repeating: 0, count: 65536)
    /// Plaintext read from the transport, handed to the WebSocket.
    private var received: [UInt8] = []
    private var exitCode: ClientExitCode?
    private var quitting = false

    /// The Web Push endpoint (`--push webpush`); it listens while locked. Opened in ``run()``, after the descriptors
    /// inherited from the parent are closed.
    private var pushEndpoint: PushEndpoint?

    /// Makes a runner; `user` comes from the token.
    public convenience init(options: ClientOptions, user: String) {
        self.init(options: options, user: user, frontEnd: options.interactive ? TerminalFrontEnd(colour: options.colour, bell: options.terminalBell) : ScriptFrontEnd(user: user))
    }

    /// Makes a runner that takes its input from, and gives its output to, `frontEnd`.
    package init(options: ClientOptions, user: String, frontEnd: any ClientFrontEnd) {
        var options = options
        if let device = options.deviceName {
            options.server.path += (options.server.path.contains("?") ? "&" : "?") + "device=" + device
        }
        self.options = options
        var tag: UInt32 = 0
        var generator = SystemRandomNumberGenerator()
        tag = generator.next()
        var configuration = ClientConfiguration(
            user: user, viewportSize: options.viewportSize, toastDuration: options.toastDuration,
            deviceTag: String(tag, radix: 36))
        configuration.pacesRateLimitedSends = options.interactive
        core = ClientCore(configuration: configuration)
        self.frontEnd = frontEnd
    }

    /// Runs until `quit`, end of input, or a fatal start error; returns the exit code.
    public func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        // Inside an app the process, its signals and its descriptors are the app's.
        if !options.embedded {
            // A parent may start us with signals blocked (Foundation's Process does); SIGTERM/SIGINT must work.
            var none = sigset_t()
            sigemptyset(&none)
            sigprocmask(SIG_SETMASK, &none, nil)
            // Descriptors a parent leaked to us (e.g. another child's pipe) would keep its reader waiting for EOF
            // for as long as we live; we own only 0, 1 and 2.
            Self.closeInheritedDescriptors()
        }
        if options.server.secure {
            let trust: TLSTrust = options.insecure ? .insecure : options.caFile.map { .caFile($0) } ?? .system
            do {
                tlsContext = try TLSContext.client(trust: trust)
            } catch {
                // An unreadable --ca-file is a bad flag, not an unreachable server.
                frontEnd.fail(options.caFile.map { "--ca-file \($0): cannot load CA certificates: \(error.detail)" } ?? "cannot set up TLS: \(error)")
                frontEnd.finish()
                return ClientExitCode.badFlags.rawValue
            }
        }
        if let registration = options.pushRegistration {
            var configuration = core.configuration
            configuration.pushSubscription = registration
            core = ClientCore(configuration: configuration)
        }
        if let port = options.webPushPort {
            do {
                let endpoint = try PushEndpoint(port: port)
                pushEndpoint = endpoint
                var configuration = core.configuration
                configuration.pushSubscription = endpoint.subscription
                core = ClientCore(configuration: configuration)
                if !options.interactive { frontEnd.log("push endpoint listening on \(endpoint.subscription.endpoint ?? "")") }
            } catch {
                frontEnd.fail("--push-port \(port): cannot listen: \(error)")
                frontEnd.finish()
                return ClientExitCode.badFlags.rawValue
            }
        }
        startConnect(now: MonotonicClock.now())
        if exitCode == nil, let url = options.openURL, let error = core.openAtStart(url, now: MonotonicClock.now()) {
            frontEnd.fail("--open \(url): \(error)")
            frontEnd.finish()
            return ClientExitCode.badFlags.rawValue
        }
        while exitCode == nil {
            flush(now: MonotonicClock.now())
            if exitCode != nil { break }
            pollOnce()
            let now = MonotonicClock.now()
            core.tick(now: now)
            timers(now: now)
            feedCommands(now: now)
        }
        frontEnd.finish()
        return (exitCode ?? .success).rawValue
    }

    // MARK: - Loop steps

    private func pollOnce() {
        var fds: [pollfd] = []
        let stdinIndex: Int? = frontEnd.inputEnded ? nil : 0
        if stdinIndex != nil { fds.append(pollfd(fd: frontEnd.inputDescriptor, events: Int16(POLLIN), revents: 0)) }
        var socketIndex: Int?
        if let transport, transport.pollDescriptor >= 0 {
            var events = Int16(POLLIN)
            if connecting || transport.wantsWrite || !(webSocket?.output.isEmpty ?? true) { events |= Int16(POLLOUT) }
            socketIndex = fds.count
            fds.append(pollfd(fd: transport.pollDescriptor, events: events, revents: 0))
        }
        let pushIndex = fds.count
        let pushDescriptors = pushEndpoint?.descriptors ?? []
        for fd in pushDescriptors { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        // A continue after a stop wakes the loop; the front end's next render drains it and redraws whole.
        if RawTerminal.resumeDescriptor >= 0 { fds.append(pollfd(fd: RawTerminal.resumeDescriptor, events: Int16(POLLIN), revents: 0)) }
        let now = MonotonicClock.now()
        let keepAlive = webSocket?.nextDeadline.map(Instant.init(milliseconds:))
        let deadlines = [core.nextDeadline, reconnectAt, handshakeDeadline, frontEnd.nextRedraw(now: now), keepAlive, pushEndpoint?.nextDeadline]
            .compactMap { $0 }
        var timeout: Int32 = -1
        if let next = deadlines.min() { timeout = Int32(clamping: max(0, (next - now).value)) }
        if quitting { timeout = 0 }
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        if ready < 0 { return }  // EINTR: the loop comes round again
        if let stdinIndex, fds[stdinIndex].revents != 0 { readInput() }
        if let socketIndex, fds[socketIndex].revents != 0 { socketReady(fds[socketIndex].revents) }
        // An app's stream has no descriptor: what it reported woke the loop through the front end's wake-up.
        if let transport, transport.pollDescriptor < 0, transport.hasPendingInput { socketReady(Int16(POLLIN)) }
        for (offset, fd) in pushDescriptors.enumerated() where fds[pushIndex + offset].revents != 0 { pushReadable(fd) }
        pushEndpoint?.expire(now: MonotonicClock.now())
    }

    /// A push reached the endpoint (or a request is under way): decrypted pushes go to the core.
    private func pushReadable(_ fd: Int32) {
        guard let pushEndpoint else { return }
        for received in pushEndpoint.readable(fd, now: MonotonicClock.now()) {
            switch received {
            case .payload(let payload): core.receiveProviderPush(payload, now: MonotonicClock.now())
            case .undecryptable(let reason): frontEnd.log("push endpoint refused \(reason)")
            }
        }
        flush(now: MonotonicClock.now())
    }

    /// `lock` closes the connection and keeps it closed (the app is suspended); `unlock` opens it again.
    private func followLock(now: Instant) {
        if core.locked {
            guard transport != nil || reconnectAt != nil else { return }
            if var webSocket, let transport, webSocket.isOpen {
                webSocket.close()
                try? transport.send(&webSocket.output)
            }
            transport?.close()
            transport = nil
            webSocket = nil
            connecting = false
            handshakeDeadline = nil
            reconnectAt = nil
            openedAt = nil
            core.connectionLost(now: now, reason: "locked")
            frontEnd.connectionChanged(.locked)
            flush(now: now)
        } else if transport == nil, reconnectAt == nil, everOpened, exitCode == nil {
            backoff.reset()
            startConnect(now: now)
        }
    }

    private func readInput() {
        let count = readBuffer.withUnsafeMutableBytes { Glibc.read(frontEnd.inputDescriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { return }
        pendingLines += frontEnd.input(count > 0 ? readBuffer[0..<count] : [])
        if let isEmpty = frontEnd.takeComposerChange() { core.composerChanged(isEmpty: isEmpty, now: MonotonicClock.now()) }
    }

    /// Feeds queued inputs while the core is free; ends the process after `quit` or end of input.
    private func feedCommands(now: Instant) {
        while !core.wantsQuit, !pendingLines.isEmpty {
            if case .send(let conversation, let clientMessageId, let text, let imageURL) = pendingLines[0] {
                // A message with its own id answers nothing, so it never waits for the command slot.
                pendingLines.removeFirst()
                core.send(to: conversation, clientMessageId: clientMessageId, text: text, imageURL: imageURL, now: now)
                flush(now: now)
                continue
            }
            if core.isBusy {
                // A script's answers come in command order, so its next line waits. A person's typed message does not
                // wait behind a command that waits for the server: it shows in the thread at once, sending or queued.
                guard options.interactive, case .command(let command) = pendingLines[0],
                      core.sendBesideActiveCommand(command, now: now) else { break }
                pendingLines.removeFirst()
                flush(now: now)
                continue
            }
            switch pendingLines.removeFirst() {
            case .send: continue  // fed above
            case .unreadable(let error):
                frontEnd.answer(CommandAnswer(name: error.command, outcome: .error(code: error.code, message: error.message)))
            case .command(let command):
                core.begin(command, now: now)
                flush(now: now)
                followLock(now: now)
            }
        }
        // Leaving waits for the first connection attempt to settle, so "server down at start" is always exit 4 (an
        // embedded client never exits 4: it keeps trying until told to stop).
        guard exitCode == nil, everOpened || options.embedded else { return }
        if core.wantsQuit || (frontEnd.inputEnded && pendingLines.isEmpty && !core.isBusy) {
            quit()
        }
    }

    private func quit() {
        flush(now: MonotonicClock.now())
        if var webSocket, let transport, webSocket.isOpen {
            webSocket.close()
            try? transport.send(&webSocket.output)
        }
        transport?.close()
        exitCode = .success
    }

    /// Hands the core's answers and events to the front end, sends its requests, writes the socket, redraws.
    private func flush(now: Instant) {
        // The screen's size first: a resize may bring messages on screen, and their acks go out with the rest.
        if let geometry = frontEnd.geometry() { core.setScreen(geometry) }
        for output in core.drainOutputs() {
            switch output {
            case .answer(let answer): frontEnd.answer(answer)
            case .event(let event): frontEnd.event(event)
            case .log(let text): frontEnd.log(text)
            case .stored(let clientMessageId, let message): frontEnd.stored(clientMessageId: clientMessageId, message: message)
            case .send(let frame):
                webSocket?.send(String(decoding: frame.encode(), as: UTF8.self))
            }
        }
        if let transport, !connecting, var session = webSocket {
            do {
                try transport.send(&session.output)
                webSocket = session
            } catch {
                failedAttempt(connectionFailure("write failed", error), now: now)
            }
        }
        frontEnd.render(core, now: now)
        pendingLines += frontEnd.takeFollowUps()
    }

    // MARK: - Connection

    private func startConnect(now: Instant) {
        reconnectAt = nil
        if let makeStream = options.byteStream {
            transport = makeStream(options.server.host, options.server.port, options.server.secure)
            connecting = true
            handshakeDeadline = now + .seconds(5)
            return
        }
        do {
            let socket = try TCPSocket.connect(host: options.server.host, port: options.server.port)
            // SNI and the certificate's name (or IP SAN) are checked against the host of --server.
            let engine = try tlsContext.map { (context) throws(TLSError) in try TLSEngine(context: context, serverName: options.server.host) }
            transport = ClientTransport(socket: socket, tls: engine)
            connecting = true
            handshakeDeadline = now + .seconds(5)
        } catch {
            unreachable("cannot reach \(options.server.host):\(options.server.port): \(error)", now: now)
        }
    }

    /// One line for a failed read or write: TLS failures name the certificate problem.
    private func connectionFailure(_ what: String, _ error: ClientTransport.Failure) -> String {
        if case .tls = error { return "\(serverURL): \(error)" }
        return "\(what): \(error)"
    }

    private var serverURL: String {
        "\(options.server.secure ? "wss" : "ws")://\(options.server.hostHeader)"
    }

    private func socketReady(_ revents: Int16) {
        let now = MonotonicClock.now()
        guard let transport else { return }
        if connecting {
            if let error = transport.connectFailure() {
                return unreachable("cannot reach \(options.server.host):\(options.server.port): \(error)", now: now)
            }
            guard transport.isOpen, revents & Int16(POLLOUT) != 0 || revents & Int16(POLLIN) != 0 else { return }
            connecting = false
            do {
                try transport.start()
            } catch {
                return failedAttempt(connectionFailure("TLS start failed", error), now: now)
            }
            webSocket = ClientWebSocket(
                address: options.server, token: options.token, compression: options.compression ? PerMessageDeflateClientConfiguration() : nil,
                keepAlive: options.keepAlive)
            flush(now: now)
            return
        }
        received.removeAll(keepingCapacity: true)
        let result: ClientTransport.ReadResult
        do {
            if revents & Int16(POLLOUT) != 0 { try transport.flush() }
            result = try transport.read(into: &received)
        } catch {
            return failedAttempt(connectionFailure("connection error", error), now: now)
        }
        switch result {
        case .nothing: return
        case .ended:
            // A refusal's body may end with the connection: report the refusal, not the end.
            if var session = webSocket {
                let events = session.connectionEnded()
                webSocket = session
                if !events.isEmpty { _ = handle(events, of: session, now: now); return }
            }
            return failedAttempt("the server closed the connection", now: now)
        case .bytes: break
        }
        guard var session = webSocket else { return }
        let events = session.receive(received[...], now: now.milliseconds)
        webSocket = session
        guard handle(events, of: session, now: now) else { return }
        // TLS close_notify without a close frame: nothing more will come.
        if transport.peerClosed, self.transport === transport { lost("the server ended the TLS session", now: now) }
    }

    /// Acts on what the WebSocket reported, in order. Returns false when the connection (or the client) ended.
    private func handle(_ events: [ClientWebSocket.Event], of session: ClientWebSocket, now: Instant) -> Bool {
        for event in events {
            switch event {
            case .opened:
                everOpened = true
                handshakeDeadline = nil
                openedAt = now
                if !options.interactive { frontEnd.log(openedDescription(session)) }
                core.connectionOpened(now: now)
            case .text(let text):
                switch ServerFrame.decode(text) {
                case .success(let frame): core.receive(frame, now: now)
                case .failure(let error): frontEnd.log("undecodable frame from the server: \(error.message)")
                }
            case .rejected(let status, let reason, let explanation):
                let why = explanation.map { ": \($0)" } ?? ""
                if status == 401 {
                    frontEnd.fail("the server refused the token (HTTP 401)\(why)")
                    exitCode = .unauthorized
                    return false
                }
                failedAttempt("the server refused the connection: \(reason)\(why)", now: now)
                return false
            case .closed(let code, let reason):
                if code == HeraldCloseCode.credentialsEnded {
                    // The same token would be refused: stop, like a refused upgrade, instead of retrying.
                    frontEnd.fail("\(reason): the token expired or this device was signed out; get a new token")
                    exitCode = .unauthorized
                    return false
                }
                lost(reason, now: now)
                return false
            }
            flush(now: now)
        }
        return true
    }

    /// `connected to wss://host:port (TLSv1.3, permessage-deflate: …)`: what the connection runs with, for
    /// people and tests reading stderr.
    private func openedDescription(_ session: ClientWebSocket) -> String {
        var details: [String] = []
        if let version = transport?.tlsVersion { details.append(version) }
        details.append(session.compression.map { "permessage-deflate: \($0.responseHeader)" } ?? "no compression")
        return "connected to \(serverURL) (\(details.joined(separator: ", ")))"
    }

    private func timers(now: Instant) {
        if let handshakeDeadline, handshakeDeadline <= now {
            self.handshakeDeadline = nil
            failedAttempt("no handshake answer from \(options.server.host):\(options.server.port) within 5 s", now: now)
        }
        if let reconnectAt, reconnectAt <= now { startConnect(now: now) }
        // The WebSocket's keep-alive deadlines (the same machine as the server's; off unless configured).
        if var session = webSocket, let deadline = session.nextDeadline, deadline <= now.milliseconds {
            let events = session.timerFired(now: now.milliseconds)
            webSocket = session
            _ = handle(events, of: session, now: now)
        }
    }

    /// The server did not answer the connect: a person who started the interactive client waits for it (the server
    /// may be starting too), retried on the reconnect backoff and shown in the status line; a script exits 4 at start
    /// as its contract says.
    private func unreachable(_ reason: String, now: Instant) {
        if options.interactive || options.embedded { return lost(reason, now: now) }
        failedAttempt(reason, now: now)
    }

    /// A connection attempt or a live connection failed: exit 4 if nothing ever got through, else back off and retry
    /// (an embedded client always retries).
    private func failedAttempt(_ reason: String, now: Instant) {
        if !everOpened && !options.embedded {
            frontEnd.fail(reason)
            transport?.close()
            transport = nil
            exitCode = .unreachable
            return
        }
        lost(reason, now: now)
    }

    private func lost(_ reason: String, now: Instant) {
        transport?.close()
        transport = nil
        webSocket = nil
        connecting = false
        handshakeDeadline = nil
        core.connectionLost(now: now, reason: reason)
        // Only a connection that lasted starts the backoff again: one closed right after it opened (refused by a
        // limit, a server in trouble) must not make the client reconnect every 100 ms.
        if let openedAt, now - openedAt >= Self.healthyConnection { backoff.reset() }
        openedAt = nil
        let delay = backoff.nextDelay()
        reconnectAt = now + delay
        frontEnd.connectionChanged(.reconnecting(at: now + delay, reason: reason))
        frontEnd.log("\(reason); reconnecting in \(delay.value) ms")
    }

    /// Closes every descriptor above 2 listed in /proc/self/fd (there is no close_range in Swift's Glibc).
    static func closeInheritedDescriptors() {
        guard let directory = opendir("/proc/self/fd") else { return }
        var descriptors: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let fd = Int32(name), fd > 2 { descriptors.append(fd) }
        }
        let own = dirfd(directory)
        closedir(directory)
        for fd in descriptors where fd != own && !RawTerminal.owns(fd) { Glibc.close(fd) }
    }

    // MARK: - stderr

    static func log(_ text: String) {
        writeAll(2, stderrLine(text))
    }

    /// One stderr line (`herald: …`, `herald: error: …`). What it says may come from the server or a peer (a close
    /// reason, an error), and stderr is usually a terminal: it is written as drawable text (TerminalText), one line
    /// whatever it holds.
    static func stderrLine(_ text: String, error: Bool = false) -> String {
        "herald: \(error ? "error: " : "")\(TerminalText.line(text))\n"
    }

    /// A one-line error naming the cause.
    public static func fail(_ text: String) {
        RawTerminal.restore()  // so the line is not lost on the alternate screen
        writeAll(2, stderrLine(text, error: true))
    }

    static func writeAll(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.write(fd, base + offset, buffer.count - offset)
            }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            offset += count
        }
    }
}

/// Script mode (client-script.md), a user of the typed API like the others: each stdin line is parsed into a typed
/// command, and each typed answer and event is written as one JSON object a line on stdout.
final class ScriptFrontEnd: ClientFrontEnd {
    private var partial: [UInt8] = []
    private(set) var inputEnded = false
    /// The user the client runs as (mentions and own clientMessageIds in `message` lines).
    private let user: String

    init(user: String) {
        self.user = user
    }

    func input(_ bytes: ArraySlice<UInt8>) -> [ClientInput] {
        if bytes.isEmpty {
            inputEnded = true
            let last = partial
            partial = []
            return Self.command(String(decoding: last, as: UTF8.self)).map { [$0] } ?? []
        }
        var lines: [ClientInput] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if let input = Self.command(String(decoding: partial, as: UTF8.self)) { lines.append(input) }
                partial.removeAll(keepingCapacity: true)
            } else {
                partial.append(byte)
            }
        }
        return lines
    }

    /// The typed command a line stands for, or its error; nil for a blank or comment line.
    private static func command(_ line: String) -> ClientInput? {
        switch ScriptCommandParser.parse(line) {
        case nil: nil
        case .success(let command)?: .command(command)
        case .failure(let error)?: .unreadable(error)
        }
    }

    func answer(_ answer: CommandAnswer) { write(ScriptOutput.line(answer)) }
    func event(_ event: ClientEvent) { write(ScriptOutput.line(event, me: user)) }

    /// One JSON line; C1 controls, DEL and bidirectional controls are escaped (`\u009b`), so the line stays ASCII
    /// where a terminal would obey it, also when stdout is one.
    private func write(_ line: JSONValue) { ClientRunner.writeAll(1, line.terminalSafeText + "\n") }
    func render(_ core: ClientCore, now: Instant) {}
    func nextRedraw(now: Instant) -> Instant? { nil }
    func finish() {}
    func takeFollowUps() -> [ClientInput] { [] }
    func log(_ text: String) { ClientRunner.log(text) }
    func connectionChanged(_ status: ConnectionStatus) {}
    func geometry() -> ScreenGeometry? { nil }
    func takeComposerChange() -> Bool? { nil }
}
