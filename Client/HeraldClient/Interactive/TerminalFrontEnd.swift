import Glibc
import HeraldProtocol
import HeraldRules

/// The interactive terminal, laid out like the chat clients people like (a header with the badges, the toast banner,
/// the scene, a notice line, a status line, the input line) and driven by chat-style input and keys: plain text is
/// sent in a thread, commands start with `/`, arrows select and scroll, Esc goes back. The screen follows the
/// terminal's size; the thread viewport is sized to the rows it really has, so only what is drawn is read (U2/U3).
final class TerminalFrontEnd: ClientFrontEnd {
    private(set) var inputEnded = false
    private var decoder = KeyDecoder()
    var editor = LineEditor()
    /// The list row the arrows move (its index in list order).
    private var selectedRow = 0
    private var showingHelp = false
    /// The help's first row on screen and the rows a help page moves (the help scrolls when taller than the area).
    private var helpTop = 0
    private var helpPage = 1
    /// The conversation Alt-A opens: the most recent other one with activity, at the last redraw.
    private var nextActive: String?
    /// The newest thing to tell the person (an error, an answer, a hint).
    var notice = ""
    /// Commands the front end runs itself after an answer (open the conversation `/dm` made).
    private var followUps: [ClientCommand] = []
    /// `/dm` and `/group` typed here open their conversation once answered.
    private var openAnswer = false
    private var connection: ConnectionStatus = .connecting
    /// Whether a connection ever got through (a failure before it is a server not up yet, not a lost connection).
    private var everOnline = false
    private var lastFrame = ""
    private var lastSize = (columns: 0, rows: 0)
    private var utcOffset = 0
    private let active: Bool
    /// What typed lines and completion refer to, taken at the last redraw.
    var context = ChatContext(me: "", scene: .list, conversations: [], users: [], newestFromOthers: nil)
    private var toastVisible = false
    private var pageSize = 1
    /// The composer's text when it was last looked at for typing reports (E1).
    private var composerSeen = ""
    /// Commands waiting for a yes (`/sign-out`, `/leave`, quitting with unsent text): `y` runs them, any other key drops them.
    var awaitingConfirmation: (question: String, commands: [ClientInput])?
    /// A yes to the waiting question also empties the composer (its text went into the commands).
    private var confirmationTakesComposer = false
    /// Esc was pressed once with text in the composer: a second Esc right after clears it (one Esc never loses text).
    private var escapeArmed = false
    /// Unsent composer text of the conversations not open now (keyed by conversation id; "" for the other scenes):
    /// each conversation keeps its own draft.
    private var drafts: [String: String] = [:]
    /// The conversation (or "") whose draft the composer holds.
    private var draftKey = ""
    /// Sends the server has not acknowledged, at the last redraw.
    private var unsent = 0
    /// Colour on (off with `--no-color` or `NO_COLOR`): styles that are no colour (bold, reverse) stay either way.
    let colour: Bool
    /// `--terminal-bell`: ring the terminal bell on a mention or a direct message out of sight (``AttentionBell``).
    let bell: Bool
    /// Messages that arrived since the last redraw, for the bell to look at (it needs the core's state).
    var arrivals: [MessageInfo] = []
    /// Select mode: a message of the open thread picked with the arrows, that `/edit`, `/unsend` and `/react` act on.
    var selection = MessageSelection()
    /// `/search` in the open thread: its hits and the keys that go through them.
    private var search = SearchNavigator()

    /// Fixed rows around the scene: header, two toast rows, two rules, notice, status and input.
    static let chromeRows = 8

    init(colour: Bool = true, bell: Bool = false) {
        self.colour = colour
        self.bell = bell
        active = RawTerminal.enter()
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        utcOffset = local.tm_gmtoff
    }

    // MARK: - Input

    /// What the keys in `bytes` run: typed messages and typed commands.
    func input(_ bytes: ArraySlice<UInt8>) -> [ClientInput] {
        if bytes.isEmpty {
            inputEnded = true
            return []
        }
        var lines: [ClientInput] = []
        for key in decoder.feed(bytes) {
            lines += handle(key)
            if inputEnded { break }
        }
        return lines
    }

    /// What one key does; returns the commands it runs.
    private func handle(_ key: Key) -> [ClientInput] {
        if showingHelp, awaitingConfirmation == nil, let step = Self.helpStep(key, page: helpPage) {
            helpTop = max(0, helpTop + step)
            return []
        }
        if let commands = awaitingConfirmation?.commands {
            // The question is answered by this key, which does nothing else: only `y` says yes (the default is no).
            awaitingConfirmation = nil
            let takesComposer = confirmationTakesComposer
            confirmationTakesComposer = false
            if case .text(let text) = key, text == "y" || text == "Y" {
                notice = ""
                if commands == Self.quitCommands { inputEnded = true }
                if takesComposer { editor.replace(with: "") }
                return commands
            }
            notice = "cancelled: nothing was done"
            // Ctrl-C still quits; any other key (another Ctrl key included) only answered the question. Ctrl-C on the
            // quit question itself is the second Ctrl-C people press to mean "yes, quit".
            guard case .control("c") = key else { return [] }
            if commands == Self.quitCommands { return quitNow() }
        }
        if let commands = selectionKey(key) { return commands }
        if search.isActive, editor.isEmpty, let commands = search.commands(for: key) {
            notice = search.isActive ? search.status : ""
            return commands.map(ClientInput.command)
        }
        let scene = context.scene
        let escapeWasArmed = escapeArmed
        escapeArmed = false
        switch key {
        case .text(let text):
            // A pasted C1 control would be drawn one column wider than the line's cursor counts: it is not text.
            editor.insert(String(String.UnicodeScalarView(text.unicodeScalars.filter { !TerminalText.isControl($0) })))
        case .enter:
            if editor.isEmpty {
                if showingHelp { showingHelp = false }
                if scene == .list, context.conversations.indices.contains(selectedRow) {
                    return [.command(.open(.thread(context.conversations[selectedRow].id)))]
                }
                return []
            }
            showingHelp = false
            return run(editor.submit())
        case .backspace: editor.backspace()
        case .delete: editor.deleteForward()
        case .left: editor.moveLeft()
        case .right: editor.moveRight()
        case .home:
            // Home on an empty line goes to the top of the history, as End goes to the newest message.
            if editor.isEmpty, scene.conversation != nil { return [.command(.scroll(.top))] }
            editor.moveHome()
        case .end:
            if editor.isEmpty, scene.conversation != nil { return [.command(.scroll(.bottom))] }
            editor.moveEnd()
        case .up:
            if scene == .list && editor.isEmpty {
                selectedRow = max(0, selectedRow - 1)
            } else {
                editor.historyBack()
            }
        case .down:
            if scene == .list && editor.isEmpty {
                selectedRow = min(max(0, context.conversations.count - 1), selectedRow + 1)
            } else {
                editor.historyForward()
            }
        case .pageUp:
            if scene.conversation != nil { return [.command(.scroll(.up(pageSize)))] }
        case .pageDown:
            if scene.conversation != nil { return [.command(.scroll(.down(pageSize)))] }
        case .tab:
            let completion = ChatInput.complete(editor.text, in: context)
            if let line = completion.line { editor.replace(with: line) }
            if completion.matches.count > 1 { notice = completion.matches.joined(separator: "  ") }
        case .escape:
            if showingHelp {
                showingHelp = false
            } else if !editor.isEmpty {
                if escapeWasArmed {
                    editor.replace(with: "")
                    notice = ""
                } else {
                    escapeArmed = true
                    notice = "Esc again clears the line"
                }
            } else if scene != .list && scene.isForeground {
                return [.command(.open(.list))]
            }
        case .control(let letter):
            return control(letter)
        case .alt(let character):
            return alt(character)
        case .paste(let text):
            return paste(text)
        }
        return []
    }

    /// A bracketed paste: one line goes into the composer (not sent: Enter sends it); several lines are one message,
    /// sent with what was typed before them after a y/N question that says how many lines, never line by line.
    private func paste(_ pasted: String) -> [ClientInput] {
        // CR LF, CR and LF are one line break each; other controls are not text (a tab is a space).
        var scalars = String.UnicodeScalarView()
        var afterCR = false
        for scalar in pasted.unicodeScalars {
            defer { afterCR = scalar == "\r" }
            if scalar == "\n" && afterCR { continue }
            if scalar == "\r" || scalar == "\n" {
                scalars.append("\n")
            } else if scalar == "\t" {
                scalars.append(" ")
            } else if !TerminalText.isControl(scalar) {
                scalars.append(scalar)
            }
        }
        var text = String(scalars)
        while text.hasSuffix("\n") { text.removeLast() }
        guard text.contains("\n") else {
            editor.insert(text)
            return []
        }
        guard let open = context.scene.conversation else {
            notice = "a paste of several lines is sent in a conversation: open one first"
            return []
        }
        let message = editor.text + text
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false).count
        awaitingConfirmation = ("Send the \(lines) pasted lines as one message? (y/N)", [.command(.send(conversation: open, text: message))])
        confirmationTakesComposer = true
        return []
    }

    /// Alt plus a key: Alt-1…9 open the list's first nine conversations (as irssi switches windows), Alt-Backspace
    /// deletes a word, Alt-Enter starts a new line in the message; other Alt keys do nothing (and never touch the
    /// composer).
    private func alt(_ character: Character) -> [ClientInput] {
        if character == "\r" || character == "\n" {
            editor.insert("\n")
            return []
        }
        if let digit = character.wholeNumberValue, (1...9).contains(digit), character.isASCII {
            guard context.conversations.indices.contains(digit - 1) else { return [] }
            selectedRow = digit - 1
            return [.command(.open(.thread(context.conversations[digit - 1].id)))]
        }
        if character == "\u{7F}" { editor.deleteWordBackward() }
        // weechat's Alt-U (the first unread of this conversation) and irssi's Alt-A (the next one with activity).
        if character == "u", context.scene.conversation != nil { return [.command(.scroll(.firstUnread))] }
        if character == "a" {
            guard let next = nextActive else {
                notice = "no other conversation has unread messages"
                return []
            }
            return [.command(.open(.thread(next)))]
        }
        return []
    }

    /// How far a key scrolls the help (rows), nil for a key that does not scroll it.
    private static func helpStep(_ key: Key, page: Int) -> Int? {
        switch key {
        case .up: -1
        case .down: 1
        case .pageUp: -page
        case .pageDown: page
        case .home: Int.min / 2
        case .end: Int.max / 2
        default: nil
        }
    }

    /// What a quit runs once agreed.
    private static let quitCommands: [ClientInput] = [.command(.quit)]

    /// Ctrl-C, Ctrl-D on an empty line, `/quit`: quits at once when nothing would be lost, else asks (y/N) first.
    private func quit() -> [ClientInput] {
        let draft = !editor.isEmpty || drafts.values.contains { !$0.isEmpty }
        guard unsent > 0 || draft else { return quitNow() }
        var lost: [String] = []
        if unsent > 0 { lost.append("\(unsent) unsent message\(unsent == 1 ? "" : "s")") }
        if draft { lost.append("a draft") }
        awaitingConfirmation = ("Quit? \(lost.joined(separator: " and ")) will be lost. (y/N)", Self.quitCommands)
        return []
    }

    private func quitNow() -> [ClientInput] {
        inputEnded = true
        return Self.quitCommands
    }

    private func control(_ letter: Character) -> [ClientInput] {
        switch letter {
        case "c": return quit()
        case "d":
            // Ctrl-D quits only from an empty line; with text it deletes forward, as in a shell.
            if editor.isEmpty { return quit() }
            editor.deleteForward()
        case "u": editor.deleteToStart()
        case "w": editor.deleteWordBackward()
        case "k": editor.deleteToEnd()
        case "a": editor.moveHome()
        case "e": editor.moveEnd()
        case "p": editor.historyBack()
        case "n": editor.historyForward()
        case "o": if toastVisible { return [.command(.toastTap)] }
        case "x": if toastVisible { return [.command(.toastSwipe)] }
        case "b": return [.command(.open(.notifications))]
        case "s": return enterSelection()
        case "l": lastFrame = ""  // redraw everything
        case "z": RawTerminal.suspend()  // job control: back to the shell; the continue redraws (RawTerminal)
        default: break
        }
        return []
    }

    /// A typed line: a message, a command, or help.
    private func run(_ line: String) -> [ClientInput] {
        switch ChatInput.interpret(line, in: context) {
        case .send(let conversation, let text):
            notice = ""
            return [.command(.send(conversation: conversation, text: text))]
        case .commands(let commands) where commands == [.quit]:
            return quit()
        case .commands(let commands):
            switch commands.first {
            case .dm?, .group?: openAnswer = true
            default: break
            }
            notice = ""
            if case .search(let conversation, let text, _)? = commands.first {
                search.begin(conversation: conversation, text: text)
                notice = search.status
            }
            return commands.map(ClientInput.command)
        case .help:
            showingHelp = true
            helpTop = 0
        case .notice(let text): notice = text
        case .confirm(let question, let commands):
            awaitingConfirmation = (question, commands.map(ClientInput.command))
        case .nothing: break
        }
        return []
    }

    func takeFollowUps() -> [ClientInput] {
        defer { followUps = [] }
        return followUps.map(ClientInput.command)
    }

    // MARK: - Output

    func answer(_ answer: CommandAnswer) {
        let command = answer.name
        if let taken = search.take(answer) {
            followUps += taken.commands
            notice = taken.notice
            return
        }
        switch answer.outcome {
        case .ok(let details):
            if (command == "dm" || command == "group") && openAnswer, let conversation = details.conversation {
                openAnswer = false
                followUps.append(.open(.thread(conversation)))
            } else if let people = details.people {
                notice = Self.people(people)
            } else if !["send", "send-image", "open", "scroll", "toast", "quit", "dm", "group"].contains(command) {
                notice = "✓ \(command)"
            }
        case .error(_, let message):
            openAnswer = false
            notice = "✗ \(command): \(message)"
        case .state(let snapshot):
            notice = "state: \(snapshot.scene.name) · badge \(snapshot.badge) · \(snapshot.connected ? "online" : "offline")"
        }
    }

    func event(_ event: ClientEvent) {
        switch event {
        case .push(let arrival): notice = "push: \(arrival.info.title): \(arrival.info.preview)"
        case .message(let message, _): arrivals.append(message)
        case .sendFailed(_, _, let message): notice = "✗ not sent: \(message)"
        case .left(let conversation, let user) where user == context.me: notice = "you are no longer in \(conversation)"
        default: break
        }
    }

    /// `users` / `members` answers as one line of names.
    private static func people(_ people: [ParticipantInfo]) -> String {
        if people.isEmpty { return "nobody" }
        return people.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
    }

    func log(_ text: String) {
        // Diagnostics would scribble over the screen; the status line shows the connection's state instead.
    }

    func connectionChanged(_ status: ConnectionStatus) {
        connection = status
        // Why it dropped goes on the notice line; the status line keeps to the state. Before the first connection
        // nothing was lost: the server is not up yet, and the client waits for it.
        if case .reconnecting(_, let reason) = status {
            notice = everOnline ? "connection lost: \(reason)" : "waiting for the server: \(reason)"
        }
    }

    // MARK: - Drawing

    func geometry() -> ScreenGeometry? {
        guard active else { return nil }
        let (width, height) = RawTerminal.size()
        // The thread's title takes one row of the scene.
        return ScreenGeometry(width: width, rows: max(1, height - Self.chromeRows - 1), threadCovered: showingHelp, utcOffsetSeconds: utcOffset)
    }

    func render(_ core: ClientCore, now: Instant) {
        guard active else { return }
        let (width, height) = RawTerminal.size()
        if core.connected { everOnline = true }
        var model = core.screenModel(now: now)
        selectedRow = min(selectedRow, max(0, model.conversations.count - 1))
        model.selectedRow = model.scene == .list && !model.conversations.isEmpty ? selectedRow : nil
        model.utcOffsetSeconds = utcOffset
        model.today = CalendarDay.day(ofMilliseconds: Int64(time(nil)) * 1000, utcOffsetSeconds: utcOffset)
        nextActive = ActivityOrder.next(
            model.conversations.map { .init(id: $0.id, unread: $0.unread, markedUnread: $0.markedUnread, lastActivity: $0.lastActivity) },
            current: model.scene.conversation)
        context = ChatContext(
            me: model.user, scene: model.scene, conversations: model.conversations.map { ($0.id, $0.title) },
            users: core.knownPeople, newestFromOthers: core.newestFromOthersInThread,
            newestMine: core.newestMineInThread, participants: core.threadParticipants)
        toastVisible = model.toast != nil
        pageSize = core.viewportPage
        unsent = core.unsentCount
        switchDraft(to: model.scene.conversation ?? "")
        settleSelection(model)
        model.selectedMessage = selection.target?.id
        context.selected = selection.target.map { ChatContext.Selected(id: $0.id, mine: $0.mine, senderName: $0.senderName) }
        if search.isActive, model.scene.conversation != search.conversation {
            search.end()
            notice = ""
        }

        let presenter = ScenePresenters.presenter(for: model.scene)
        var lines: [String] = []
        let bellCount = model.bellBadgeText.isEmpty ? "" : " (\(model.bellBadgeText))"
        let badge = model.badgeText.isEmpty ? "" : " (\(model.badgeText))"
        lines.append(fit("Herald · \(model.user) · Messages\(badge) · Bell\(bellCount)\(Self.alertState(model, quiet: core.alerts.quiet))", width))
        var banner = presenter.toastOverlay(model, width: width)
        if !banner.isEmpty { banner[0] = fit(banner[0] + "  ^O open · ^X dismiss", width) }
        while banner.count < 2 { banner.append("") }
        lines += banner.prefix(2)
        lines.append(String(repeating: "─", count: width))
        let bodyHeight = max(1, height - Self.chromeRows)
        var body: [String]
        if showingHelp {
            let page = HelpScreen.page(HelpScreen.lines(width: width), top: helpTop, height: bodyHeight)
            body = page.rows
            helpTop = page.top
            helpPage = max(1, bodyHeight - 2)
        } else {
            body = presenter.body(model, width: width, height: bodyHeight)
        }
        if body.count > bodyHeight {
            // The viewport sizes the thread to fit, so this only cuts what lies below its rows (pending sends, the
            // "new messages" line): never a row it counted as seen (U2).
            body = Array(body.prefix(bodyHeight))
        }
        while body.count < bodyHeight { body.append("") }
        lines += body
        // E1: the typing line sits in the rule under the thread, so the thread keeps the rows its viewport counted.
        lines.append(model.typingLine.map { fit("── \($0) " + String(repeating: "─", count: width), width) } ?? String(repeating: "─", count: width))
        // A question waiting for y/N stays in sight whatever else comes in meanwhile.
        // Answers and errors may quote the server: they carry no style of anyone's.
        lines.append(TerminalStyle.unmarked(awaitingConfirmation?.question ?? notice))
        lines.append(fit(statusLine(model, core: core, now: now), width))
        let (shown, cursor) = editor.view(width: width - 2)
        lines.append("> " + TerminalStyle.unmarked(shown))

        // The one point where text reaches the screen: every row is drawable text (TerminalText), whatever a
        // presenter let through, cut to the width it really takes; only our own escape sequences are added after.
        lines = lines.map { Self.drawable($0, width: width, colour: colour) }
        var frame = ""
        if RawTerminal.takeResumed() {
            // Continued after a stop: the shell drew over the screen meanwhile, so all of it is drawn again.
            lastSize = (0, 0)
            lastFrame = ""
        }
        if (width, height) != lastSize {
            lastSize = (width, height)
            frame += "\u{1B}[2J"  // resized: clear what the old layout left
        }
        frame += "\u{1B}[H"
        // Each row is cleared, then written from its first column: nothing of the previous frame is left beside it,
        // whatever its width (with autowrap off, erasing after a full row would take its last column).
        frame += lines.prefix(height).map { "\u{1B}[2K" + $0 }.joined(separator: "\r\n")
        frame += "\u{1B}[\(min(height, lines.count));\(3 + cursor)H"
        if ringsBell(core, scene: model.scene) { frame += "\u{07}" }
        guard frame != lastFrame else { return }
        lastFrame = frame
        RawTerminal.write(frame)
    }

    /// Keeps the composer's text as the draft of the conversation left and brings back the one of the conversation
    /// now open.
    private func switchDraft(to key: String) {
        guard key != draftKey else { return }
        drafts[draftKey] = editor.isEmpty ? nil : editor.text
        editor.replace(with: drafts.removeValue(forKey: key) ?? "")
        draftKey = key
        escapeArmed = false
        // A draft brought back is not typing (E1): only a change the person makes is reported.
        composerSeen = editor.text
    }

    /// The reverse video a presenter puts around the selected row: the only escape sequence a row may hold.
    private static let highlight = (on: "\u{1B}[7m", off: "\u{1B}[0m")

    /// `row` as the terminal may be given it: drawable text (TerminalText) of at most `width` columns, in the
    /// presenter's reverse video when it is the selected row, its style marks turned into our own SGR sequences
    /// (``TerminalStyle``) last.
    static func drawable(_ row: String, width: Int, colour: Bool = true) -> String {
        if row.hasPrefix(highlight.on), row.hasSuffix(highlight.off), row.count >= highlight.on.count + highlight.off.count {
            let inner = row.dropFirst(highlight.on.count).dropLast(highlight.off.count)
            return highlight.on + TerminalStyle.paint(fit(TerminalText.line(String(inner)), width), colour: colour, base: highlight.on) + highlight.off
        }
        return TerminalStyle.paint(fit(TerminalText.line(row), width), colour: colour)
    }

    /// The connection's state and what the keys do here.
    private func statusLine(_ model: ScreenModel, core: ClientCore, now: Instant) -> String {
        let state: String
        if model.connected {
            state = TerminalStyle.styled("●", .good) + " online"
        } else {
            switch connection {
            case .locked: state = TerminalStyle.styled("○", .faint) + " locked: pushes only"
            case .reconnecting(let at, _):
                let seconds = max(0, (at - now).value + 999) / 1000
                state = TerminalStyle.styled("○", .bad) + (seconds > 0 ? " offline: retrying in \(seconds) s" : " offline: reconnecting…")
            case .connecting: state = TerminalStyle.styled("○", .warning) + " connecting…"
            }
        }
        let waiting = model.pending.isEmpty || model.connected ? "" : " · \(model.pending.count) waiting to send"
        let keys: String
        switch model.scene {
        case .list: keys = "↑↓ Enter open · /dm <user> · /help"
        case .thread: keys = "Enter send · PgUp/PgDn · ^S select · Esc back · /help"
        default: keys = "Esc back · /help"
        }
        return "\(state)\(waiting) · \(keys)"
    }

    func takeComposerChange() -> Bool? {
        let text = editor.text
        guard text != composerSeen else { return nil }
        composerSeen = text
        // A command (`/dm bob`) is not a message being typed.
        return text.isEmpty || text.hasPrefix("/")
    }

    func nextRedraw(now: Instant) -> Instant? {
        active ? now + 250 : nil
    }

    func finish() {
        RawTerminal.restore()
    }
}

/// What the terminal's status line says about the connection.
package enum ConnectionStatus: Sendable {
    case connecting
    /// Lost; the next attempt is at `at`.
    case reconnecting(at: Instant, reason: String)
    /// `lock`: closed on purpose until `unlock`.
    case locked
}
