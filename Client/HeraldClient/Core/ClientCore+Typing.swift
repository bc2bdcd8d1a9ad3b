import HeraldProtocol
import HeraldRules

/// E1 and E2 on the device: typing reports going out, typing and presence events coming in.
extension ClientCore {
    // MARK: - Reporting (E1)

    /// Sends a typing start or stop. With `answers` the active `typing` command waits for the server's answer; a
    /// report is never queued for a later connection (it would be stale), so offline it is refused.
    mutating func reportTyping(_ report: TypingReporter.Report, answers: Bool) {
        let request: ClientRequest
        switch report {
        case .start(let conversation):
            ephemeral.reported.insert(conversation)
            request = .typingStart(conversation: conversation)
        case .stop(let conversation):
            ephemeral.reported.remove(conversation)
            request = .typingStop(conversation: conversation)
        }
        guard connected else {
            if answers { answerError(code: "not_connected", message: "typing is reported only while connected") }
            return
        }
        emitRequest(request, purpose: .typing(answers: answers))
    }

    /// A send in `conversation` ends this device's typing there.
    mutating func stopTypingBeforeSend(in conversation: String) {
        if ephemeral.reporter.isReporting(in: conversation) {
            for report in ephemeral.reporter.stop() { reportTyping(report, answers: false) }
        } else if ephemeral.reported.contains(conversation) {
            reportTyping(.stop(conversation), answers: false)
        }
    }

    /// The person typed in the open thread's composer (interactive mode).
    public mutating func composerChanged(isEmpty: Bool, now: Instant) {
        self.now = now
        guard let conversation = scene.conversation, !isEmpty else {
            for report in ephemeral.reporter.stop() { reportTyping(report, answers: false) }
            return
        }
        for report in ephemeral.reporter.keystroke(in: conversation, now: now) { reportTyping(report, answers: false) }
    }

    /// Leaving the thread (or the foreground) stops the composer's standing start there.
    mutating func composerFollowsScene() {
        guard let reporting = ephemeral.reporter.conversation, scene.viewedConversation(isForeground: scene.isForeground) != reporting else { return }
        for report in ephemeral.reporter.stop() { reportTyping(report, answers: false) }
    }

    mutating func typingAnswered(_ response: ResponseFrame, answers: Bool) {
        if answers {
            guard response.ok else { return answerServerError(response) }
            answerOK()
        } else if let error = response.error {
            log("typing report refused: \(error.code.rawValue) \(error.message)")
        }
    }

    // MARK: - Receiving

    mutating func typingChanged(_ frame: EventFrame) {
        guard let conversation = frame.conversationId, let who = frame.user, who != user else { return }
        let changed = frame.typing == true ? ephemeral.typing.start(who, in: conversation, now: now) : ephemeral.typing.stop(who, in: conversation)
        if changed { typingEvent(conversation) }
    }

    /// A message from someone ends their typing there (E1).
    mutating func messageEndsTyping(_ message: MessageInfo) {
        if ephemeral.typing.stop(message.sender, in: message.conversation) { typingEvent(message.conversation) }
    }

    mutating func presenceChanged(_ frame: EventFrame) {
        guard let who = frame.user, let status = frame.status else { return }
        let state = PresenceState(status: status, lastSeen: frame.lastSeen)
        ephemeral.presence[who] = state
        emit(.presence(user: who, status: status, lastSeen: state.lastSeen))
    }

    /// Typing that fell silent ends; the composer's silence reports a stop.
    mutating func ephemeralTick(now: Instant) {
        for conversation in ephemeral.typing.tick(now: now) { typingEvent(conversation) }
        for report in ephemeral.reporter.tick(now: now) { reportTyping(report, answers: false) }
    }

    /// Without a connection no stop can arrive: every indicator ends, and this device's own reports are void. Presence
    /// heard so far is forgotten too: the next sync tells it afresh (and someone who left meanwhile may not be in it).
    mutating func ephemeralConnectionLost() {
        for conversation in ephemeral.typing.clear().sorted() { typingEvent(conversation) }
        ephemeral.reported.removeAll()
        _ = ephemeral.reporter.stop()
        ephemeral.presence.removeAll()
    }

    /// `{"type":"event","event":"typing","conversation":…,"users":[…]}`: who types there now.
    mutating func typingEvent(_ conversation: String) {
        emit(.typing(conversation: conversation, users: ephemeral.typing.users(in: conversation)))
    }

    /// The users typing in `conversation` with their display names, for the line under the thread.
    public func typingNames(in conversation: String) -> [String] {
        let info = directory[conversation]
        return ephemeral.typing.users(in: conversation).map { id in info?.participants.first { $0.id == id }?.name ?? id }
    }

    /// The last presence heard of `user`.
    public func presence(of user: String) -> PresenceState? { ephemeral.presence[user] }

    /// The screen's typing line, list rows and a 1:1 thread's presence (E1, E2).
    func addTypingAndPresence(to model: inout ScreenModel) {
        for index in model.conversations.indices {
            model.conversations[index].typing = !ephemeral.typing.users(in: model.conversations[index].id).isEmpty
        }
        guard let conversation = scene.conversation, let info = directory[conversation] else { return }
        model.typingLine = TypingText.line(names: typingNames(in: conversation))
        if info.kind == .direct, let other = info.participants.first(where: { $0.id != user }) {
            model.threadPresence = ephemeral.presence[other.id] ?? PresenceState(status: .offline)
        }
    }
}
