import HeraldProtocol
import HeraldRules

/// What the core asks its host (the IO loop) to do, in order.
public enum ClientOutput: Sendable {
    /// The answer to a command, in command order.
    case answer(CommandAnswer)
    /// Something that happened by itself.
    case event(ClientEvent)
    /// Send this request to the server.
    case send(RequestFrame)
    /// A diagnostic for stderr.
    case log(String)
    /// The server stored this send (or had stored it: a retry, R4). Said even when its `message` event was printed
    /// before (a retry after a restart of an app that keeps unsent messages), so the app can forget it.
    case stored(clientMessageId: String, message: String)
}

/// The client's application logic, sans-IO: typed commands, server frames, connection changes and time go in,
/// typed answers, events and requests come out (`drainOutputs()`). The rules themselves (toasts, scenes, unread, bell,
/// viewport, deep links) live in HeraldRules; this type holds the state and glues the rules together.
///
/// ```swift
/// var core = ClientCore(configuration: config)
/// core.connectionOpened(now: now)          // -> .send(sync)
/// core.receive(frame, now: now)            // -> .event(.connected(mode: "snapshot", latest: 7))
/// core.begin(.state, now: now)             // -> .answer(CommandAnswer(name: "state", outcome: .state(…)))
/// ```
public struct ClientCore: Sendable {
    /// Why a request was sent, so its response lands in the right place.
    enum Purpose: Sendable, Equatable {
        case sync
        case scene
        case ack(conversation: String, answers: Bool)
        case history(conversation: String, mode: HistoryMode)
        /// The conversation list again (a message arrived for one not known yet); then `open thread` of `thenOpen`,
        /// which the local list did not have when the command came.
        case reloadConversations(thenOpen: String?)
        /// A request made by the active command, answered with its response.
        case command(retryable: Bool)
        /// `answers`: the active command waits for this response (false once it was answered as queued).
        case send(clientMessageId: String, answers: Bool)
        /// The device's push subscription, registered after the first sync.
        case pushRegistration
        /// A tapped opaque push (`--push-preview none`) resolved to its message, whose link is then followed (D2).
        case pushResolve
        /// A typing report (E1): `answers` when a `typing` command waits for it.
        case typing(answers: Bool)
        /// An older page loaded for the `jump` command until `message` is among the loaded ones.
        case jump(conversation: String, message: String)
    }

    enum HistoryMode: Sendable, Equatable {
        /// Opening the thread: the newest page; then reveal `message` (D2) or the bottom.
        case open(reveal: String?, answers: Bool)
        /// Scrolling above the loaded messages: an older page, then scroll up by `scroll`.
        case older(scroll: Int, answers: Bool)
        /// After a reconnect: merge the newest page.
        case refresh
        /// `scroll top` or `scroll unread` beyond the loaded messages: an older page, then on towards the target;
        /// `pages` were loaded for it so far.
        case seek(ClientCommand.ScrollMove, pages: Int, answers: Bool)
    }

    /// The command being answered; the next one waits until it is (answers come in command order).
    struct ActiveCommand: Sendable {
        var command: ClientCommand
        var sleepUntil: Instant?
        /// The answer's fields, held until the server has taken the scene report this command caused.
        var answerAfterScene: AnswerDetails?
    }

    public let configuration: ClientConfiguration
    var user: String { configuration.user }

    // Connection
    /// True from the sync response until the connection drops (R1a).
    public internal(set) var connected = false
    var socketOpen = false
    var lastSequence: Int64?
    var nextRequestId = 1
    var inFlight: [Int: (ClientRequest, Purpose)] = [:]
    /// The id of the newest scene report; a scene command is answered once the server has answered it.
    var latestSceneRequest: Int?
    /// Requests waiting for a synced connection, in order; survives reconnects (the outgoing send queue).
    var deferred: [(ClientRequest, Purpose)] = []
    /// Sends refused as `rate_limited`, in order, waiting until `pacedUntil` to go out again (same clientMessageId,
    /// R4); sends made meanwhile wait behind them (one already in flight when the refusal came may still land first).
    var pacedSends: [(ClientRequest, Purpose)] = []
    var pacedUntil: Instant?
    var sendCounter = 0
    var lastReportedScene: SceneReport?
    var everSynced = false

    // Screen
    public internal(set) var scene: Scene = .list
    /// The scene `foreground` returns to.
    var sceneBeforeBackground: Scene = .list
    var directory = ConversationDirectory()
    var threads: [String: ThreadCache] = [:]
    /// Reactions to messages, by message id (``ReactionSummary``).
    var reactions: [String: [MessageReaction]] = [:]
    var viewport: ThreadViewport?
    var unread = UnreadLedger()
    var bell = BellLedger()
    var notificationInfo: [String: NotificationInfo] = [:]
    var toasts: ToastManager
    /// N1, N3: the user's mutes and quiet hours as the server last said.
    var alerts = ClientAlertState()
    var pushes: [PushInfo] = []
    /// `lock`: the phone is locked, the app suspended: no connection (the host closes it and does not reconnect), only
    /// the push endpoint is listening.
    public internal(set) var locked = false
    /// Whether the push subscription was registered with the server (once per process).
    var pushRegistered = false
    var printedMessages: Set<String> = []
    var router = DeepLinkRouter()
    /// The pages of a `users` or `members` listing, and the last `users` answer (``knownUsers``).
    var people = PeopleListing()
    /// D3: the link waiting for its conversation.
    var pendingDeepLink: DeepLink? { router.pending }

    /// The terminal's thread area (columns, rows), when a screen draws the thread; the viewport is then sized in
    /// rows by ``ThreadLayout`` instead of `--viewport` messages.
    var screenGeometry: ScreenGeometry?
    /// Receipts seen on this device: conversation → reader → the newest message of mine they read (U6).
    var receipts: [String: [String: String]] = [:]
    /// The open thread's unread count when it was opened, and the message the "new" divider goes above.
    var openedUnread: OpenedUnread?

    var active: ActiveCommand?
    var outputs: [ClientOutput] = []
    /// The time of the input being handled.
    var now: Instant = .zero
    /// Who types where, what this device reported, and others' presence (E1, E2).
    var ephemeral = ClientEphemeral()
    /// Set by `quit`: the host closes the connection and exits 0.
    public internal(set) var wantsQuit = false

    public init(configuration: ClientConfiguration) {
        self.configuration = configuration
        self.toasts = ToastManager(configuration: ToastManager.Configuration(defaultDuration: configuration.toastDuration))
    }

    // MARK: - API

    /// True while a command waits for its answer; the host feeds the next command only when this is false.
    public var isBusy: Bool { active != nil }

    /// The next instant the host must call `tick(now:)` at (toast timers, `sleep`).
    public var nextDeadline: Instant? {
        [toasts.nextDeadline, active?.sleepUntil, router.nextDeadline, ephemeral.nextDeadline, pacedUntil].compactMap { $0 }.min()
    }

    /// Takes what the core produced since the last call.
    public mutating func drainOutputs() -> [ClientOutput] {
        defer { outputs = [] }
        return outputs
    }

    /// Time passed.
    public mutating func tick(now: Instant) {
        self.now = now
        applyToastEvents(toasts.tick(now: now))
        if router.nextDeadline.map({ $0 <= now }) ?? false { applyRoute(router.tick(now: now), answers: false) }
        ephemeralTick(now: now)
        if let until = pacedUntil, until <= now { resendPaced() }
        if let until = active?.sleepUntil, until <= now {
            answerOK()
        }
    }

    // MARK: - Connection

    /// The WebSocket is open: start the stream (resume after the last seq seen, else a snapshot).
    public mutating func connectionOpened(now: Instant) {
        self.now = now
        socketOpen = true
        connected = false
        inFlight = [:]
        emitRequest(.sync(after: lastSequence), purpose: .sync)
    }

    /// The connection dropped (or could not be made). In-flight requests that are safe to repeat go back to
    /// the queue; the others fail their command clearly.
    public mutating func connectionLost(now: Instant, reason: String) {
        self.now = now
        let wasConnected = connected
        socketOpen = false
        connected = false
        lastReportedScene = nil
        let lost = inFlight.sorted { $0.key < $1.key }.map(\.value)
        inFlight = [:]
        var requeue: [(ClientRequest, Purpose)] = []
        for (request, purpose) in lost {
            switch purpose {
            case .sync, .scene, .typing(answers: false): continue
            case .command(retryable: false), .typing(answers: true):
                answerError(code: "connection_lost", message: "the connection dropped before the server answered; not retried")
            case .send(let clientMessageId, true):
                // The send stays queued and goes out again after the reconnect (same clientMessageId, R4);
                // the command is answered now so the script is not held up while the server is away.
                answerQueuedSend(request, clientMessageId: clientMessageId)
                requeue.append((request, .send(clientMessageId: clientMessageId, answers: false)))
            default: requeue.append((request, purpose))
            }
        }
        deferred = requeue + deferred
        // A scene command waiting for its report is answered now: the scene is reported again after the reconnect.
        if let details = active?.answerAfterScene { answerOK(details) }
        if wasConnected { emit(.disconnected(reason: reason)) }
        ephemeralConnectionLost()
    }

    // MARK: - Requests

    /// Sends a request now if the stream is live, else queues it for the next connection.
    mutating func request(_ request: ClientRequest, purpose: Purpose) {
        if case .send = purpose, !pacedSends.isEmpty {
            pacedSends.append((request, purpose))
        } else if connected {
            emitRequest(request, purpose: purpose)
        } else {
            deferred.append((request, purpose))
        }
    }

    mutating func emitRequest(_ request: ClientRequest, purpose: Purpose) {
        let id = nextRequestId
        nextRequestId += 1
        inFlight[id] = (request, purpose)
        outputs.append(.send(RequestFrame(id: id, request: request)))
    }

    /// Tells the server where the device is, when that changed since the last report.
    mutating func reportScene() {
        composerFollowsScene()
        let atBottom: Bool? = scene.conversation == nil ? nil : (viewport?.isAtBottom ?? true)
        let report = SceneReport(scene: scene, foreground: scene.isForeground, atBottom: atBottom)
        guard connected, report != lastReportedScene else { return }
        lastReportedScene = report
        latestSceneRequest = nextRequestId
        emitRequest(.scene(report), purpose: .scene)
    }

    /// Answers the active scene command once the server has processed the scene report it caused, so that
    /// anything sent after the answer is judged by the new scene (P1/P3 push decisions, S5/S6); at once when no
    /// report is in flight (offline, or nothing changed).
    mutating func answerAfterSceneReport(_ details: AnswerDetails = AnswerDetails()) {
        if let latestSceneRequest, inFlight[latestSceneRequest] != nil {
            active?.answerAfterScene = details
        } else {
            answerOK(details)
        }
    }

    // MARK: - Output helpers

    mutating func emit(_ event: ClientEvent) { outputs.append(.event(event)) }

    mutating func log(_ text: String) { outputs.append(.log(text)) }

    /// Answers the active command with `ok` and `details`, and frees the command slot.
    mutating func answerOK(_ details: AnswerDetails = AnswerDetails()) {
        guard let command = active?.command else { return }
        active = nil
        outputs.append(.answer(CommandAnswer(name: command.name, outcome: .ok(details))))
    }

    /// Answers the active command with an error.
    mutating func answerError(code: String, message: String) {
        guard let command = active?.command else { return }
        active = nil
        outputs.append(.answer(CommandAnswer(name: command.name, outcome: .error(code: code, message: message))))
    }

    /// Answers a send that waits in the outgoing queue: ok with `queued` and its clientMessageId.
    mutating func answerQueuedSend(_ request: ClientRequest, clientMessageId: String) {
        var conversation = ""
        if case .send(let id, _, _, _, _) = request { conversation = id }
        answerOK(AnswerDetails(conversation: conversation, queued: true, clientMessageId: clientMessageId))
    }
}
