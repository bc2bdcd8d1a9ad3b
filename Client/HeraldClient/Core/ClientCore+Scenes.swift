import HeraldProtocol
import HeraldRules

extension ClientCore {
    // MARK: - Scene changes

    /// `open …`: changes scene; a thread loads its newest page first and answers once it shows it.
    mutating func open(_ destination: ClientCommand.Destination) {
        switch destination {
        case .list: changeScene(to: .list)
        case .notifications: changeScene(to: .notifications)
        case .tab(let name): changeScene(to: .tab(name))
        case .thread(let conversation):
            // The list may not have caught up yet (a conversation just created or joined, its event still on the
            // way): the server's list decides, not the copy here.
            if everSynced, !directory.contains(conversation) {
                return request(.conversations, purpose: .reloadConversations(thenOpen: conversation))
            }
            openThread(conversation, reveal: nil, answers: true)
            return
        }
        answerAfterSceneReport(AnswerDetails(scene: scene.name))
    }

    /// `open thread` once the server's list was read: opened if the user is in it, refused otherwise (R5).
    mutating func openKnown(_ conversation: String) {
        guard directory.contains(conversation) else {
            return answerError(code: "not_participant", message: "no conversation \(conversation) in this user's list")
        }
        openThread(conversation, reveal: nil, answers: true)
    }

    /// Moves to a scene other than a thread (or leaves a thread).
    mutating func changeScene(to newScene: Scene) {
        if scene.conversation != newScene.conversation { viewport = nil }
        scene = newScene
        if newScene.isForeground { sceneBeforeBackground = newScene }
        applyToastEvents(toasts.handle(.sceneChanged(newScene), now: now))
        reportScene()
    }

    /// D2: thread(c), then its bottom or the named message. Shows the cached messages at once when there are
    /// any and loads the newest page; the command is answered when that page is shown (or at once while offline).
    mutating func openThread(_ conversation: String, reveal: String?, answers: Bool) {
        let cached = threads[conversation]?.ids ?? []
        noteOpenedUnread(conversation)
        let opened = ThreadViewport.open(
            conversation: conversation, messageIDs: cached, size: viewportRows(conversation), heights: viewportHeights(conversation),
            leads: viewportLeads(conversation), isShown: !threadCovered)
        scene = .thread(conversation)
        sceneBeforeBackground = scene
        viewport = opened.viewport
        // T8: entering thread(c) removes every toast about c.
        applyToastEvents(toasts.handle(.sceneChanged(scene), now: now))
        reportScene()
        markVisible(opened.change.becameVisible)
        if threads[conversation] == nil { threads[conversation] = ThreadCache() }
        request(.history(conversation: conversation, before: nil, limit: pageSize),
                purpose: .history(conversation: conversation, mode: .open(reveal: reveal, answers: answers && connected)))
        if answers && !connected { answerOK(viewportAnswer) }
    }

    mutating func enterBackground() {
        guard scene.isForeground else { return }
        sceneBeforeBackground = scene
        scene = .background
        if var viewport {
            _ = viewport.setShown(false)
            self.viewport = viewport
        }
        applyToastEvents(toasts.handle(.sceneChanged(.background), now: now))
        reportScene()
    }

    /// Back to the scene that was left (or `target`), showing the thread again: its window becomes visible.
    mutating func enterForeground(to target: Scene?) {
        guard !scene.isForeground else { return }
        scene = target ?? sceneBeforeBackground
        if scene.conversation == nil { viewport = nil }
        applyToastEvents(toasts.handle(.sceneChanged(scene), now: now))
        if var viewport, scene.conversation == viewport.conversation, !threadCovered {
            let change = viewport.setShown(true)
            self.viewport = viewport
            markVisible(change.becameVisible)
        }
        reportScene()
    }

    // MARK: - Viewport

    /// `scroll up|down n|bottom`: moves the window; scrolling above the loaded messages loads an older page first.
    mutating func scroll(_ move: ClientCommand.ScrollMove) {
        guard var viewport, scene.isViewing(viewport.conversation) else {
            return answerError(code: "not_in_thread", message: "scroll needs an open thread")
        }
        let change: ViewportChange
        switch move {
        case .up(let count):
            let conversation = viewport.conversation
            if count > viewport.rowsAbove, threads[conversation]?.hasOlder ?? false, connected {
                let oldest = threads[conversation]?.messages.first?.id
                request(.history(conversation: conversation, before: oldest, limit: min(200, max(pageSize, count))),
                        purpose: .history(conversation: conversation, mode: .older(scroll: count, answers: true)))
                return
            }
            change = viewport.scrollUp(by: count)
        case .down(let count): change = viewport.scrollDown(by: count)
        case .bottom: change = viewport.jumpToBottom()
        case .top, .firstUnread: return seek(move, pages: 0, answers: true)
        }
        self.viewport = viewport
        reportScene()
        markVisible(change.becameVisible, answers: true)
    }

    /// The viewport's fields for answers: visible ids, atBottom, newBelow.
    var viewportAnswer: AnswerDetails {
        guard let viewport, scene.conversation == viewport.conversation else { return AnswerDetails() }
        return AnswerDetails(viewport: ViewportAnswer(visible: viewport.visibleIDs, atBottom: viewport.isAtBottom, newBelow: viewport.newBelow))
    }

    /// A conversation's unread count and the badge, now.
    func unreadCounts(in conversation: String) -> UnreadCounts {
        UnreadCounts(unread: unread.unread(in: conversation), badge: unread.badge)
    }

    mutating func historyLoaded(_ response: ResponseFrame, conversation: String, mode: HistoryMode) {
        let answers: Bool
        switch mode {
        case .open(_, let flag), .older(_, let flag), .seek(_, _, let flag): answers = flag
        case .refresh: answers = false
        }
        guard response.ok, let page = response.messages else {
            if case .open = mode, scene == .thread(conversation) {
                // Not the user's conversation (R5): back to the list, nothing revealed.
                threads[conversation] = nil
                changeScene(to: .list)
            }
            if answers { answerServerError(response) }
            return
        }
        // History prints no message events; its ids are known so a late live copy prints none either.
        for message in page { printedMessages.insert(message.id) }
        var cache = threads[conversation] ?? ThreadCache()
        let wasEmpty = cache.messages.isEmpty
        cache.merge(page: page)
        noteReactions(in: page)
        switch mode {
        case .open, .refresh:
            cache.reachesNewest = true
            if wasEmpty { cache.hasOlder = response.hasMore ?? false }
        case .older, .seek:
            cache.hasOlder = response.hasMore ?? false
        }
        threads[conversation] = cache
        emitHistory(conversation: conversation, page: page)
        guard var viewport, viewport.conversation == conversation else {
            if answers { answerOK() }
            return
        }
        var visible: [String] = []
        switch mode {
        case .open:
            // The newest page is here: count the unread back from its newest message, not from a stale cache.
            if openedUnread?.conversation == conversation {
                openedUnread?.countedFrom = nil
                openedUnread?.settled = false
            }
            placeDivider()
        case .older, .seek: placeDivider()
        case .refresh: break
        }
        let rows = viewportRows(conversation)
        let heights = viewportHeights(conversation)
        let leads = viewportLeads(conversation)
        switch mode {
        case .open(let reveal, _):
            let opened = ThreadViewport.open(conversation: conversation, messageIDs: cache.ids, size: rows, heights: heights,
                                             leads: leads, isShown: scene.isViewing(conversation) && !threadCovered)
            let before = Set(viewport.readIDs)
            viewport = opened.viewport
            visible = opened.change.becameVisible.filter { !before.contains($0) }
            if let reveal, let change = viewport.reveal(reveal) { visible += change.becameVisible.filter { !before.contains($0) } }
        case .older(let count, _):
            visible += viewport.resize(size: rows, heights: heights, leads: leads).becameVisible
            visible += viewport.prependOlder(cache.ids).becameVisible
            visible += viewport.scrollUp(by: count).becameVisible
        case .seek(let target, let pages, _):
            // The window stays on its rows while pages arrive: only the target, once reached, is brought on screen.
            visible += viewport.resize(size: rows, heights: heights, leads: leads).becameVisible
            visible += viewport.prependOlder(cache.ids).becameVisible
            self.viewport = viewport
            markVisible(visible)
            return seek(target, pages: pages + 1, answers: answers)
        case .refresh:
            // Only messages newer than the window's last known one are new here; resumed events usually brought them.
            let known = Set(viewport.messageIDs)
            let lastKnown = cache.ids.lastIndex { known.contains($0) } ?? -1
            visible += viewport.resize(size: rows, heights: heights, leads: leads).becameVisible
            for (index, id) in cache.ids.enumerated() where index > lastKnown { visible += viewport.append(id).becameVisible }
        }
        self.viewport = viewport
        reportScene()
        markVisible(visible, answers: answers)
    }

    /// A record of a loaded page (history prints no `message` events): the messages oldest first.
    mutating func emitHistory(conversation: String, page: [MessageInfo]) {
        let messages = page.sorted { ($0.createdAt, ThreadCache.number($0.id)) < ($1.createdAt, ThreadCache.number($1.id)) }
        emit(.history(conversation: conversation, messages: messages))
    }

    // MARK: - Deep links (D1-D3), through HeraldRules' DeepLinkRouter

    /// Follows link text (open-url, push tap, toast tap, `--open`) and performs the router's steps.
    mutating func follow(url: String, answers: Bool) {
        applyRoute(router.open(url, now: now), answers: answers)
    }

    /// Performs the router's steps in order: navigation, the thread position, the D3 wait or failure.
    mutating func applyRoute(_ steps: [DeepLinkRouter.Event], answers: Bool) {
        for step in steps {
            switch step {
            case .rejected(let url, let error):
                if answers { answerError(code: error.code, message: error.description) } else { log("not a deep link: \(url): \(error)") }
            case .navigate(let target):
                // The thread step is taken by showBottom/showMessage, which also load and position it.
                if target.conversation == nil, target != scene { changeScene(to: target) }
            case .showBottom(let conversation):
                openThread(conversation, reveal: nil, answers: answers)
            case .showMessage(let conversation, let message):
                openThread(conversation, reveal: message, answers: answers)
            case .waiting(let link):
                if answers { answerOK(AnswerDetails(pending: true, url: link.url)) }
            case .completed(let link, let target):
                emit(.route(url: link.url, scene: target.name, conversation: target.conversation, error: nil))
                if answers && target.conversation == nil { answerOK(AnswerDetails(scene: target.name)) }
            case .failed(let link, let failure):
                emit(.route(url: link.url, scene: scene.name, conversation: nil, error: failure.rawValue))
                if answers { answerOK(AnswerDetails(scene: scene.name, error: failure.rawValue)) }
            case .raiseToast(let request):
                applyToastEvents(toasts.raise(request, now: now))
            }
        }
    }

    /// `--open <url>` at start (D3): followed now, or when its conversation becomes known.
    public mutating func openAtStart(_ url: String, now: Instant) -> DeepLinkError? {
        self.now = now
        if case .failure(let error) = DeepLink.parse(url) { return error }
        follow(url: url, answers: false)
        return nil
    }
}
