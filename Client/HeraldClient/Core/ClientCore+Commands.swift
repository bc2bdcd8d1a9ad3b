import HeraldProtocol
import HeraldRules

extension ClientCore {
    /// Starts one command. Precondition for the host: `isBusy` is false (answers keep command order).
    public mutating func begin(_ command: ClientCommand, now: Instant) {
        self.now = now
        applyToastEvents(toasts.tick(now: now))
        active = ActiveCommand(command: command)
        switch command {
        case .state:
            active = nil
            outputs.append(.answer(CommandAnswer(name: command.name, outcome: .state(ClientSnapshot(self)))))
        case .dm(let other):
            // A conversation needs someone else in it.
            if other == user { return answerError(code: "bad_arguments", message: "you cannot start a conversation with yourself") }
            request(.dm(user: other), purpose: .command(retryable: true))
        case .group(let title, let members):
            request(.group(title: title, members: members), purpose: .command(retryable: false))
        case .send(let conversation, let text):
            enqueueSend(conversation: conversation, kind: .text, text: text, imageURL: nil)
        case .sendImage(let conversation, let url):
            enqueueSend(conversation: conversation, kind: .image, text: nil, imageURL: url)
        case .open(let destination):
            open(destination)
        case .background:
            enterBackground()
            answerAfterSceneReport()
        case .foreground:
            enterForeground(to: nil)
            answerAfterSceneReport(AnswerDetails(scene: scene.name))
        case .scroll(let move):
            scroll(move)
        case .toastTap, .toastSwipe, .toastAction:
            guard let visible = toasts.visible, scene.isForeground else { return answerError(code: "no_toast", message: "no toast is visible") }
            if command == .toastAction, visible.action == nil { return answerError(code: "no_action", message: "the visible toast has no action") }
            let input: ToastManager.Input = command == .toastTap ? .tap : command == .toastSwipe ? .swipe : .triggerAction
            // T9: dismiss first; a tap then follows the link, and the command is answered once the route settles.
            let followsLink = command == .toastTap && visible.url != nil
            applyToastEvents(toasts.handle(input, now: now), answersRoute: followsLink)
            if !followsLink { answerOK(AnswerDetails(toast: visible.id)) }
        case .toastShow(let kind, let priority, let key, let text):
            let request = ToastRequest(kind: kind, title: kind.name.prefix(1).uppercased() + kind.name.dropFirst(), text: text, priority: priority, dedupeKey: key)
            applyToastEvents(toasts.raise(request, now: now))
            answerOK()
        case .pushTap(let index):
            guard !pushes.isEmpty else { return answerError(code: "no_push", message: "no push to tap") }
            let position = index ?? pushes.count - 1
            guard pushes.indices.contains(position) else {
                return answerError(code: "bad_arguments", message: "push index \(position) out of range 0..<\(pushes.count)")
            }
            let push = pushes.remove(at: position)
            if locked { return tapWhileLocked(push) }
            // Tapping a push brings the app to the foreground and follows its link (D2).
            if !scene.isForeground { enterForeground(to: .list) }
            follow(url: push.url, answers: true)
        case .lock:
            lock()
        case .unlock:
            unlock()
        case .openURL(let url):
            follow(url: url, answers: true)
        case .follow(let user):
            request(.follow(user: user), purpose: .command(retryable: false))
        case .leave(let conversation):
            request(.leave(conversation: conversation), purpose: .command(retryable: false))
        case .renameGroup(let conversation, let title):
            // Retrying is safe: the same title again changes nothing, and adding a member who is in already neither.
            request(.renameGroup(conversation: conversation, title: title), purpose: .command(retryable: true))
        case .addMember(let conversation, let user):
            request(.addMember(conversation: conversation, user: user), purpose: .command(retryable: true))
        case .removeMember(let conversation, let user):
            request(.removeMember(conversation: conversation, user: user), purpose: .command(retryable: false))
        case .users(let prefix):
            listUsers(prefix: prefix)
        case .members(let conversation):
            listMembers(of: conversation)
        case .signOut(let device):
            // Without a device this one is signed out too: the server answers, then closes it with 4001.
            request(.signOut(device: device), purpose: .command(retryable: false))
        case .react(let message, let emoji):
            request(.react(message: message, emoji: emoji), purpose: .command(retryable: false))
        case .edit(let message, let text):
            // Retrying is safe: the server answers a repeated edit or unsend alike and announces it once.
            request(.editMessage(message: message, text: text), purpose: .command(retryable: true))
        case .unsend(let message):
            request(.unsendMessage(message: message), purpose: .command(retryable: true))
        case .bellRead(let id):
            applyBell(bell.handle(.markRead(id)), action: "read", notification: id)
            request(.bellRead(notification: id), purpose: .command(retryable: true))
        case .bellReadAll:
            applyBell(bell.handle(.markAllRead), action: "readAll", notification: nil)
            request(.bellReadAll, purpose: .command(retryable: true))
        case .typingStart(let conversation):
            reportTyping(.start(conversation), answers: true)
        case .typingStop(let conversation):
            reportTyping(.stop(conversation), answers: true)
        case .sleep(let milliseconds):
            active?.sleepUntil = now + Milliseconds(Int64(milliseconds))
            if milliseconds == 0 { answerOK() }
        case .quit:
            wantsQuit = true
            answerOK()
        case .mute, .unmute, .quiet, .markUnread:
            beginAlertCommand(command)
        case .search(let conversation, let text, let before):
            search(conversation, text: text, before: before)
        case .jump(let message):
            jump(to: message)
        }
    }

    /// A message typed at the terminal while an earlier command still waits for the server (a thread being opened
    /// when the connection dropped, say): sent now, or queued while offline, and shown in the thread as waiting,
    /// without waiting for that command. It takes no command slot and prints no answer; the `message` event (or
    /// `send.failed`) follows as for any queued send. False, doing nothing, for any other command.
    public mutating func sendBesideActiveCommand(_ command: ClientCommand, now: Instant) -> Bool {
        self.now = now
        switch command {
        case .send(let conversation, let text):
            enqueueSend(conversation: conversation, kind: .text, text: text, imageURL: nil, answering: false)
        case .sendImage(let conversation, let url):
            enqueueSend(conversation: conversation, kind: .image, text: nil, imageURL: url, answering: false)
        default:
            return false
        }
        return true
    }

    /// R4: one clientMessageId per send, generated once; the request waits in the queue across reconnects.
    /// `answering`: the send is the active command, answered when the server stored it (or at once while offline).
    mutating func enqueueSend(conversation: String, kind: MessageKind, text: String?, imageURL: String?, answering: Bool = true) {
        stopTypingBeforeSend(in: conversation)
        sendCounter += 1
        let clientMessageId = "\(user)-\(configuration.deviceTag)-\(sendCounter)"
        let send = ClientRequest.send(conversation: conversation, clientMessageId: clientMessageId, kind: kind, text: text, imageURL: imageURL)
        if !answering {
            request(send, purpose: .send(clientMessageId: clientMessageId, answers: false))
        } else if connected || !everSynced {
            request(send, purpose: .send(clientMessageId: clientMessageId, answers: true))
        } else {
            // Offline after having been live: queue it and answer now; the message event follows once stored.
            request(send, purpose: .send(clientMessageId: clientMessageId, answers: false))
            answerQueuedSend(send, clientMessageId: clientMessageId)
        }
        // The pending send takes rows under the thread.
        if viewport?.conversation == conversation { relayoutThread() }
    }

    // MARK: - Toasts

    /// Applies the toast manager's events: reports them (with the T11 haptic) and follows a tapped link (T9, D2).
    mutating func applyToastEvents(_ events: [ToastEvent], answersRoute: Bool = false) {
        for toastEvent in events {
            switch toastEvent {
            case .shown(let toast):
                emit(.toastShown(toast))
                if let haptic = toast.hapticName { emit(.haptic(name: haptic, toast: toast.id)) }
            case .updated(let toast):
                emit(.toastUpdated(toast))
            case .dismissed(let id, let reason):
                emit(.toastDismissed(id: id, reason: reason))
            case .openURL(let url):
                follow(url: url, answers: answersRoute)
            case .actionTriggered(let id, let action):
                emit(.toastAction(id: id, action: action.identifier))
            }
        }
    }
}
