import Foundation
import HeraldClient
import HeraldProtocol
import HeraldRules
import Synchronization

/// One signed-in device's connection to a Herald server: typed events out, typed commands in.
///
/// The session connects, reconnects after a jittered backoff, detects a server that stopped answering (liveness
/// pings), resumes the stream after a reconnect without losing or repeating a message (R3), keeps unsent messages
/// until the server stored them (R4), and applies the product rules (toasts, unread by visibility, scenes, deep links,
/// mutes and quiet hours) from HeraldRules, the same ones the `herald` terminal client follows.
///
/// ```swift
/// let session = try HeraldSession(configuration: HeraldConfiguration(server: "ws://127.0.0.1:8080", token: token))
/// session.connect()
/// for await event in session.events {
///     if case .toastShown(let toast) = event { print(toast.title, toast.text) }
/// }
/// ```
public final class HeraldSession: Sendable {
    /// The user the token names.
    public let user: String
    /// Everything that happens, in order, until the session stops. Iterate it from one task.
    public let events: AsyncStream<HeraldEvent>

    private let options: ClientOptions
    private let bridge: SessionBridge
    /// A tag unique to this session object, part of every clientMessageId it makes (R4).
    private let tag: String
    private let started = Mutex((running: false, sends: 0))

    /// Makes a session; nothing is sent until ``connect()``. Messages an earlier run left pending are loaded from the
    /// configuration's store and go out first.
    ///
    /// - Throws: ``HeraldError/invalidConfiguration(_:)`` for a bad URL, device name or a token that names no user;
    ///   ``HeraldError/storage(_:)`` when the pending messages cannot be read.
    public init(configuration: HeraldConfiguration) throws(HeraldError) {
        var options = try configuration.clientOptions()
        guard let user = TokenSubject.user(in: configuration.token) else {
            throw .invalidConfiguration("the token is not a Herald token (it names no user)")
        }
        self.user = user
        let pending = try configuration.pendingMessageStore?.load() ?? []
        let (stream, continuation) = AsyncStream.makeStream(of: HeraldEvent.self, bufferingPolicy: .unbounded)
        events = stream
        let bridge = try SessionBridge(user: user, pending: pending, store: configuration.pendingMessageStore, events: continuation)
        if let transport = configuration.transport {
            // The app's connection reports from its own threads; each report wakes the loop, which takes it in order.
            options.byteStream = { host, port, secure in
                let events = TransportEvents { bridge.wake() }
                return InjectedByteStream(events: events, connection: transport.connect(host: host, port: port, secure: secure, events: events))
            }
        }
        self.options = options
        self.bridge = bridge
        tag = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    /// Where the connection is now.
    public var connectionState: ConnectionState { bridge.shared.withLock(\.state) }

    /// Messages sent that the server has not stored yet, oldest first.
    public var pendingMessages: [PendingMessage] { bridge.shared.withLock(\.pending) }

    /// Starts connecting, on a thread of the session's own; later calls do nothing. A server that cannot be reached is
    /// retried with backoff until ``disconnect()``.
    public func connect() {
        let first = started.withLock { state -> Bool in
            defer { state.running = true }
            return !state.running
        }
        guard first else { return }
        bridge.shared.withLock { $0.state = .connecting }
        bridge.events.yield(.connection(.connecting))
        let options = options
        let user = user
        let bridge = bridge
        Thread.detachNewThread {
            let code = ClientRunner(options: options, user: user, frontEnd: bridge).run()
            bridge.loopEnded(exitCode: code)
        }
        // The loop takes what was queued before it ran (commands, pending messages) at its first wake-up.
        bridge.wake()
    }

    /// Closes the connection cleanly and stops the session; ``events`` ends after the `.stopped` state.
    public func disconnect() async {
        guard started.withLock(\.running) else {
            bridge.loopEnded(exitCode: ClientExitCode.success.rawValue)
            return
        }
        _ = try? await bridge.perform(.quit)
    }

    // MARK: - Messages

    /// Sends a text message: saved as pending first, sent now or once online, stored once however often it goes out.
    ///
    /// - Returns: the clientMessageId; the ``HeraldEvent/message(_:)`` carrying it says the server stored it.
    @discardableResult
    public func send(_ text: String, to conversation: String) throws(HeraldError) -> String {
        try send(PendingMessage(conversation: conversation, clientMessageId: nextClientMessageId(), text: text, imageURL: nil))
    }

    /// Sends an image message by URL, as ``send(_:to:)`` sends text.
    @discardableResult
    public func sendImage(url: String, to conversation: String) throws(HeraldError) -> String {
        try send(PendingMessage(conversation: conversation, clientMessageId: nextClientMessageId(), text: nil, imageURL: url))
    }

    private func send(_ message: PendingMessage) throws(HeraldError) -> String {
        try bridge.send(message)
        return message.clientMessageId
    }

    private func nextClientMessageId() -> String {
        let number = started.withLock { state in
            state.sends += 1
            return state.sends
        }
        return "\(user.prefix(64))-k\(tag)-\(number)"
    }

    /// Replaces the text of one of this user's messages (M1).
    public func edit(message: String, text: String) async throws(HeraldError) {
        _ = try await bridge.perform(.edit(message: message, text: text))
    }

    /// Takes back one of this user's messages (M2).
    public func unsend(message: String) async throws(HeraldError) {
        _ = try await bridge.perform(.unsend(message: message))
    }

    /// Reacts to a message with one emoji; every participant gets a ``HeraldEvent/reaction(conversation:message:user:emoji:)``.
    public func react(to message: String, with emoji: String) async throws(HeraldError) {
        _ = try await bridge.perform(.react(message: message, emoji: emoji))
    }

    /// Reports that this user is typing in `conversation`, or stopped (E1).
    public func setTyping(_ typing: Bool, in conversation: String) async throws(HeraldError) {
        _ = try await bridge.perform(typing ? .typingStart(conversation: conversation) : .typingStop(conversation: conversation))
    }

    // MARK: - Conversations

    /// The user's conversations in list order, the most recently active first.
    public func conversations() async throws(HeraldError) -> [ConversationSummary] {
        guard case .state(let snapshot) = try await bridge.perform(.state) else { return [] }
        return EventConversion.conversations(snapshot)
    }

    /// The 1:1 conversation with `user`, made when there is none; returns its id.
    public func directConversation(with user: String) async throws(HeraldError) -> String {
        try await conversationId(answering: .dm(user: user))
    }

    /// Makes a group conversation; returns its id.
    public func createGroup(title: String, members: [String]) async throws(HeraldError) -> String {
        try await conversationId(answering: .group(title: title, members: members))
    }

    /// Renames a group (G1: any participant may).
    public func renameGroup(_ conversation: String, to title: String) async throws(HeraldError) {
        _ = try await bridge.perform(.renameGroup(conversation: conversation, title: title))
    }

    /// Adds `user` to a group (G2: any participant may; they see its history, none of it unread).
    public func addMember(_ user: String, to conversation: String) async throws(HeraldError) {
        _ = try await bridge.perform(.addMember(conversation: conversation, user: user))
    }

    /// Removes `user` from a group (G3: its creator may remove others; anyone may remove themselves, which is leaving).
    public func removeMember(_ user: String, from conversation: String) async throws(HeraldError) {
        _ = try await bridge.perform(.removeMember(conversation: conversation, user: user))
    }

    /// The messages of `conversation` that hold every word of `text` (whole words or their start, any case), newest
    /// first, a page at a time: pass the oldest hit's id as `before` for the next page; `more` says there is one.
    public func search(_ text: String, in conversation: String, before: String? = nil) async throws(HeraldError) -> (hits: [Message], more: Bool) {
        guard case .ok(let details) = try await bridge.perform(.search(conversation: conversation, text: text, before: before)) else {
            return ([], false)
        }
        let hits = (details.hits ?? []).map { EventConversion.message($0, sequence: nil, me: user) }
        return (hits, details.more ?? false)
    }

    private func conversationId(answering command: ClientCommand) async throws(HeraldError) -> String {
        guard case .ok(let details) = try await bridge.perform(command), let conversation = details.conversation else {
            throw .refused(code: "internal", message: "the answer named no conversation")
        }
        return conversation
    }

    // MARK: - Scenes, reads, toasts, links

    /// Tells the session where the app is (S rules). The server hears it before this returns, so what is sent after
    /// is judged by the new scene; a thread's visible messages are then marked read (U2), and only those.
    public func show(_ scene: SceneChange) async throws(HeraldError) {
        let command: ClientCommand = switch scene {
        case .list: .open(.list)
        case .thread(let conversation): .open(.thread(conversation))
        case .tab(let name): .open(.tab(name))
        case .notifications: .open(.notifications)
        case .background: .background
        case .foreground: .foreground
        }
        _ = try await bridge.perform(command)
    }

    /// Moves the open thread's viewport; messages that come into view are marked read (U2).
    public func scroll(_ move: ThreadScroll) async throws(HeraldError) {
        let command: ClientCommand.ScrollMove = switch move {
        case .up(let count): .up(count)
        case .down(let count): .down(count)
        case .bottom: .bottom
        }
        _ = try await bridge.perform(.scroll(command))
    }

    /// Follows a `herald://` deep link (D rules); a ``HeraldEvent/route(url:scene:conversation:error:)`` says where it
    /// led. A badly formed link throws ``HeraldError/refused(code:message:)`` with `invalid_link`.
    public func open(link url: String) async throws(HeraldError) {
        _ = try await bridge.perform(.openURL(url))
    }

    /// Taps the visible toast: it goes away and its link is followed (T9).
    public func tapToast() async throws(HeraldError) {
        _ = try await bridge.perform(.toastTap)
    }

    /// Swipes the visible toast away.
    public func dismissToast() async throws(HeraldError) {
        _ = try await bridge.perform(.toastSwipe)
    }

    // MARK: - Alerts

    /// Hides a conversation's alerts (N1) for `minutes`, or until ``unmute(_:)``; mentions still alert (N2).
    public func mute(_ conversation: String, minutes: Int? = nil) async throws(HeraldError) {
        _ = try await bridge.perform(.mute(conversation: conversation, minutes: minutes))
    }

    /// Ends a mute (N1).
    public func unmute(_ conversation: String) async throws(HeraldError) {
        _ = try await bridge.perform(.unmute(conversation: conversation))
    }

    /// Turns quiet hours on or off (N3): normal toasts wait while they are on.
    public func setQuietHours(_ on: Bool) async throws(HeraldError) {
        _ = try await bridge.perform(.quiet(on: on))
    }

    /// Marks a conversation unread (N4).
    public func markUnread(_ conversation: String) async throws(HeraldError) {
        _ = try await bridge.perform(.markUnread(conversation: conversation))
    }
}

/// How ``HeraldSession/scroll(_:)`` moves the thread's viewport.
public enum ThreadScroll: Sendable, Equatable {
    /// Older messages, by this many.
    case up(Int)
    /// Newer messages, by this many.
    case down(Int)
    /// The newest message.
    case bottom
}
