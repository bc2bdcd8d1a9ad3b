import HeraldProtocol
import HeraldRules

extension ClientCore {
    /// One decoded frame from the server.
    public mutating func receive(_ frame: ServerFrame, now: Instant) {
        self.now = now
        switch frame {
        case .event(let event): handle(event)
        case .response(let response): handle(response)
        }
    }

    // MARK: - Responses

    mutating func handle(_ response: ResponseFrame) {
        guard let id = response.id, let (request, purpose) = inFlight.removeValue(forKey: id) else {
            log("response to an unknown request id \(response.id.map(String.init) ?? "nil")")
            return
        }
        if case .send(let clientMessageId, let answers) = purpose, response.error?.code == .rateLimited, configuration.pacesRateLimitedSends {
            return pace(request, clientMessageId: clientMessageId, answers: answers)
        }
        switch purpose {
        case .sync: synced(response)
        case .scene:
            if let error = response.error { log("scene report refused: \(error.code.rawValue) \(error.message)") }
            if let details = active?.answerAfterScene, id == latestSceneRequest { answerOK(details) }
        case .ack(let conversation, let answers):
            if let read = response.read, let latest = response.latest {
                let count = response.unread?[conversation] ?? unread.unread(in: conversation)
                applyUnread(unread.handle(.serverUpdate(UnreadUpdate(conversation: conversation, unread: count, readMessages: read, sequence: latest))))
            }
            if answers { answerOK() }
        case .history(let conversation, let mode): historyLoaded(response, conversation: conversation, mode: mode)
        case .reloadConversations(let thenOpen):
            for info in response.conversations ?? [] where !directory.contains(info.id) { addConversation(info, sequence: response.latest) }
            guard let conversation = thenOpen else { break }
            // A refused list (rate limited, say) is the answer as it is: it says nothing about the conversation.
            if let error = response.error { return answerError(code: error.code.rawValue, message: error.message) }
            openKnown(conversation)
        case .send(let clientMessageId, let answers): sendAnswered(response, clientMessageId: clientMessageId, answers: answers)
        case .command: commandAnswered(response)
        case .pushRegistration:
            if let error = response.error {
                emit(.pushRegistrationFailed(code: error.code.rawValue, message: error.message))
            } else {
                pushRegistered = true
                emit(.pushRegistered(device: response.device, provider: configuration.pushSubscription?.provider ?? ""))
            }
        case .typing(let answers): typingAnswered(response, answers: answers)
        case .jump(let conversation, let message): jumpPageLoaded(response, conversation: conversation, message: message)
        case .pushResolve:
            guard let message = response.message else {
                // Withdrawn or pruned meanwhile: the app stays on the list, where the conversation is.
                return answerOK(AnswerDetails(scene: scene.name, error: response.error?.code.rawValue ?? "not_found"))
            }
            follow(url: DeepLink.message(conversation: message.conversation, message: message.id).url, answers: true)
        }
    }

    /// R1a: the stream is live once the (final) sync response arrives; only then is `connected` printed. A resume
    /// page marked `more` asks for the next page instead.
    mutating func synced(_ response: ResponseFrame) {
        guard response.ok else {
            log("sync refused: \(response.error?.message ?? "?")")
            return
        }
        let latest = response.latest ?? lastSequence ?? 0
        if response.mode == .resume, response.more == true {
            // R3 flow control: the server replayed one bounded page; ask for the next. Not live yet, so no
            // `connected` and queued requests keep waiting (the page's events were printed as they arrived).
            lastSequence = max(lastSequence ?? 0, latest)
            log("resume page through seq \(latest); more to come")
            emitRequest(.sync(after: lastSequence), purpose: .sync)
            return
        }
        if response.mode != .resume {
            // Snapshot or resync: the full state replaces what this device had (U7 drift repair, R3).
            directory.replace(with: response.conversations ?? [])
            for info in response.conversations ?? [] {
                if let last = info.lastMessage { printedMessages.insert(last.id) }
            }
            let updates = (response.conversations ?? []).map {
                UnreadUpdate(conversation: $0.id, unread: response.unread?[$0.id] ?? $0.unread, sequence: latest)
            }
            applyUnread(unread.handle(.reload(updates, sequence: latest)))
            applyAlertSnapshot(response)
            let items = (response.notifications ?? []).map(bellItem)
            for info in response.notifications ?? [] { notificationInfo[info.id] = info }
            applyBell(bell.handle(.reload(items, sequence: latest)), action: "reload", notification: nil)
        }
        lastSequence = max(lastSequence ?? 0, latest)
        connected = true
        everSynced = true
        emit(.connected(mode: response.mode?.rawValue ?? "snapshot", latest: latest))
        reportScene()
        let queued = deferred
        deferred = []
        for (request, purpose) in queued { emitRequest(request, purpose: purpose) }
        if !pushRegistered, let subscription = configuration.pushSubscription { emitRequest(.pushRegister(subscription), purpose: .pushRegistration) }
        if let conversation = viewport?.conversation {
            request(.history(conversation: conversation, before: nil, limit: pageSize), purpose: .history(conversation: conversation, mode: .refresh))
        }
        applyRoute(router.handle(.conversationsLoaded(directory.ordered.map(\.id)), now: now), answers: false)
    }

    /// How long a send refused as `rate_limited` waits before it goes out again: the server's budget refills within it.
    static let rateLimitPause = Milliseconds.seconds(1)

    /// A send refused as `rate_limited` waits its turn and goes out again with the same clientMessageId (R4: a retry
    /// the server took already is answered as a duplicate); the command is answered now as queued.
    mutating func pace(_ request: ClientRequest, clientMessageId: String, answers: Bool) {
        if answers { answerQueuedSend(request, clientMessageId: clientMessageId) }
        pacedSends.append((request, .send(clientMessageId: clientMessageId, answers: false)))
        if pacedUntil == nil { pacedUntil = now + Self.rateLimitPause }
    }

    /// The pause is over: the paced sends go out again, oldest first (a new refusal paces them again).
    mutating func resendPaced() {
        pacedUntil = nil
        let waiting = pacedSends
        pacedSends = []
        for (request, purpose) in waiting { self.request(request, purpose: purpose) }
    }

    mutating func sendAnswered(_ response: ResponseFrame, clientMessageId: String, answers: Bool) {
        if let message = response.message { outputs.append(.stored(clientMessageId: clientMessageId, message: message.id)) }
        guard answers else {
            if let message = response.message {
                arrive(message, sequence: nil)
            } else {
                let error = response.error ?? ErrorInfo(.internal, "no result")
                emit(.sendFailed(clientMessageId: clientMessageId, code: error.code.rawValue, message: error.message))
            }
            return
        }
        if let message = response.message {
            arrive(message, sequence: nil)
            answerOK(AnswerDetails(
                conversation: message.conversation, message: message.id, duplicate: response.duplicate ?? false, clientMessageId: clientMessageId))
        } else {
            answerServerError(response)
        }
    }

    mutating func commandAnswered(_ response: ResponseFrame) {
        guard response.ok else { return answerServerError(response) }
        guard let command = active?.command else { return }
        switch command {
        case .dm, .group:
            guard let info = response.conversation else { return answerOK() }
            addConversation(info, sequence: nil)
            answerOK(AnswerDetails(conversation: info.id))
        case .follow, .react:
            answerOK(AnswerDetails(notification: response.notification?.id))
        case .bellRead(let id):
            answerOK(AnswerDetails(notification: id, unread: bell.unread))
        case .users, .members:
            peoplePageAnswered(response)
        case .edit, .unsend:
            revisionAnswered(response)
        case .search:
            searchAnswered(response)
        default:
            answerOK()
        }
    }

    mutating func answerServerError(_ response: ResponseFrame) {
        let error = response.error ?? ErrorInfo(.internal, "the server answered without a result")
        answerError(code: error.code.rawValue, message: error.message)
    }

    // MARK: - Events

    mutating func handle(_ frame: EventFrame) {
        if let seq = frame.seq { lastSequence = max(lastSequence ?? 0, seq) }
        switch frame.event {
        case .message:
            if let message = frame.message { arrive(message, sequence: frame.seq) }
        case .conversation:
            if let info = frame.conversation {
                addConversation(info, sequence: frame.seq)
                emit(.conversation(id: info.id, title: DirectoryTitle.of(info, me: user)))
            }
        case .read:
            guard let conversation = frame.conversationId else { return }
            let ids = frame.messages ?? []
            if let seq = frame.seq {
                let count = frame.unread?[conversation] ?? unread.unread(in: conversation)
                applyUnread(unread.handle(.serverUpdate(UnreadUpdate(conversation: conversation, unread: count, readMessages: ids, sequence: seq))))
            }
            // P5: a push for a message read anywhere is withdrawn.
            withdrawPushes { $0.conversation == conversation && ids.contains($0.message) }
            // U7: the stream sequence the new counts reflect, so a reader of these lines can order them too.
            emit(.read(conversation: conversation, messages: ids, counts: unreadCounts(in: conversation), sequence: frame.seq))
        case .groupChanged:
            // G1, G2: the new title or participants; the counts stay this device's (the event's `unread` is nobody's).
            if let info = frame.conversation {
                directory.changeGroup(info)
                emit(.conversation(id: info.id, title: DirectoryTitle.of(info, me: user)))
            }
        case .left:
            guard let conversation = frame.conversationId, let who = frame.user else { return }
            left(conversation, user: who, sequence: frame.seq)
            emit(.left(conversation: conversation, user: who))
        case .receipt:
            if let conversation = frame.conversationId, let message = frame.messageId, let reader = frame.reader {
                noteReceipt(conversation: conversation, message: message, reader: reader)
            }
            emit(.receipt(conversation: frame.conversationId, message: frame.messageId, reader: frame.reader, at: frame.at))
        case .bell:
            bellChanged(frame)
        case .push:
            guard let push = frame.push else { return }
            pushes.append(push)
            emit(.push(.stream(push, badge: frame.badge)))
        case .pushCleared:
            let conversation = frame.conversationId
            let message = frame.messageId
            withdrawPushes { $0.conversation == conversation && $0.message == message }
        case .settings:
            settingsChanged(frame)
        case .messageEdited, .messageUnsent:
            messageRevised(frame)
        case .typing: typingChanged(frame)
        case .presence: presenceChanged(frame)
        case .reaction: reacted(frame)
        }
    }

    mutating func withdrawPushes(where matches: (PushInfo) -> Bool) {
        let gone = pushes.filter(matches)
        pushes.removeAll(where: matches)
        for push in gone {
            emit(.pushCleared(conversation: push.conversation, message: push.message))
        }
    }

    mutating func bellChanged(_ frame: EventFrame) {
        switch frame.action {
        case .created:
            guard let info = frame.notification else { return }
            notificationInfo[info.id] = info
            applyBell(bell.handle(.received(bellItem(info), sequence: frame.seq)), action: "created", notification: info.id)
        case .read:
            let ids = frame.notificationIds ?? frame.notification.map { [$0.id] } ?? []
            let result = frame.seq.map { bell.handle(.serverRead(ids, sequence: $0)) } ?? bell.handle(.markRead(ids.first ?? ""))
            applyBell(result, action: "read", notification: ids.first)
        case .readAll:
            applyBell(frame.seq.map { bell.handle(.serverReadAll(sequence: $0)) } ?? bell.handle(.markAllRead), action: "readAll", notification: nil)
        case nil:
            break
        }
    }

    func bellItem(_ info: NotificationInfo) -> BellItem {
        BellItem(id: info.id, kind: BellKind(rawValue: info.kind.rawValue) ?? .system, text: info.text, read: info.read, createdAt: info.createdAt)
    }

    /// B2: a `bell` event for every change, `pulse` when the unread count rose.
    mutating func applyBell(_ events: [BellLedger.Event], action: String, notification: String?) {
        for case .changed(let count, let text, let pulse) in events {
            emit(.bell(action: action, notification: notification, unread: count, badgeText: text, pulse: pulse))
        }
    }

    /// Sends the acks the ledger asks for (U2) and logs stale updates it ignored (U7).
    mutating func applyUnread(_ events: [UnreadLedger.Event], answers: Bool = false) {
        var answered = false
        for ledgerEvent in events {
            switch ledgerEvent {
            case .acknowledge(let conversation, let messages):
                request(.ack(messages: messages), purpose: .ack(conversation: conversation, answers: answers && !answered))
                answered = answered || answers
            case .unreadChanged, .badgeChanged, .ignoredStale:
                // U7: a stale count is simply not applied; nothing to report.
                break
            }
        }
        if answers && !answered { answerOK(viewportAnswer) }
    }

    /// `who` left the group `conversation`: this user (on any device) drops it, its count and its thread; for anyone
    /// else only the participant list changes.
    mutating func left(_ conversation: String, user who: String, sequence: Int64?) {
        guard who == user else { return directory.removeParticipant(who, from: conversation) }
        directory.remove(conversation)
        if let sequence {
            applyUnread(unread.handle(.serverUpdate(UnreadUpdate(conversation: conversation, unread: 0, sequence: sequence))))
        }
        if scene.conversation == conversation { changeScene(to: .list) }
    }

    mutating func addConversation(_ info: ConversationInfo, sequence: Int64?) {
        directory.upsert(info)
        if let sequence {
            applyUnread(unread.handle(.serverUpdate(UnreadUpdate(conversation: info.id, unread: info.unread, sequence: sequence))))
        }
        // D3: a link that waited for this conversation completes now.
        applyRoute(router.handle(.conversationKnown(info.id), now: now), answers: false)
    }

    // MARK: - Message arrival (S1-S7)

    /// A message reached this device: printed once (never for history), placed in the list and thread, and
    /// presented as the scene rules say.
    mutating func arrive(_ message: MessageInfo, sequence: Int64?) {
        guard printedMessages.insert(message.id).inserted else { return }
        emit(.message(message, sequence: sequence))
        // G5: a system line is nobody's message: it ends no typing, counts as unread for nobody and never alerts.
        let isSystem = message.kind == .system
        if !isSystem { messageEndsTyping(message) }

        if !directory.noteMessage(message) {
            // A conversation we were not told about yet (its event may follow): fetch the list.
            request(.conversations, purpose: .reloadConversations(thenOpen: nil))
        }
        threads[message.conversation]?.append(message)
        let isFromMe = message.sender == user || isSystem
        applyUnread(unread.handle(.arrived(ArrivedMessage(conversation: message.conversation, message: message.id, isFromMe: isFromMe, sequence: sequence))))
        let outcome = SceneRules.arrival(
            of: ArrivingMessage(conversation: message.conversation, sender: message.sender, isFromMe: isFromMe),
            scene: scene, isForeground: scene.isForeground, viewportAtBottom: viewport?.isAtBottom ?? true)
        if var viewport, viewport.conversation == message.conversation {
            // The thread keeps its ids even while the app is in the background; only a shown thread makes them visible.
            // On a screen the new message's rows are known before it joins the window.
            let sized = screenGeometry == nil ? [] : viewport.resize(
                size: viewportRows(message.conversation), heights: viewportHeights(message.conversation),
                leads: viewportLeads(message.conversation)).becameVisible
            let change = viewport.append(message.id)
            self.viewport = viewport
            if outcome.presentation == .inline { markVisible(sized + change.becameVisible) }
            reportScene()
        }
        if outcome.presentation == .toast, let priority = AlertRules.messageToastPriority(for: alert(for: message)) {  // N1, N2
            var request = ToastRequest.message(
                conversation: message.conversation, senderName: message.senderName, groupTitle: directory.groupTitle(of: message.conversation),
                text: message.text, isImage: message.kind == .image, messageId: message.id, editCount: message.editCount ?? 0)
            request.priority = priority
            applyToastEvents(toasts.raise(request, now: now))
        }
    }

    /// U2/U3: exactly these ids became visible; the ledger decides what to ack.
    mutating func markVisible(_ ids: [String], answers: Bool = false) {
        guard let conversation = viewport?.conversation, !ids.isEmpty else {
            if answers { answerOK(viewportAnswer) }
            return
        }
        if openedUnread?.conversation == conversation { openedUnread?.seen.formUnion(ids) }
        applyUnread(unread.handle(.visible(conversation: conversation, messages: ids)), answers: answers)
    }

    // The viewport size comes from --viewport unbounded: cap it before doubling so Int.max cannot overflow.
    var pageSize: Int { min(200, max(50, min(configuration.viewportSize, 100) * 2)) }
}

/// The list title of a conversation (shared by the directory and events).
enum DirectoryTitle {
    static func of(_ info: ConversationInfo, me: String) -> String { ConversationDirectory.title(of: info, me: me) }
}
