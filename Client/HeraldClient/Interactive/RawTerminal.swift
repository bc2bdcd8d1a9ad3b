import Glibc

/// The terminal settings saved before raw mode, restored on exit and from signal handlers.
nonisolated(unsafe) private var savedSettings = termios()
/// The raw settings, put back when the client is continued after a stop.
nonisolated(unsafe) private var rawSettings = termios()
nonisolated(unsafe) private var rawModeActive = false
/// The self-pipe a continue writes to, so the loop's poll() wakes and redraws the whole screen (signal handlers may
/// only make async-signal-safe calls; the drawing is done by the loop).
nonisolated(unsafe) private var resumePipe: (read: Int32, write: Int32) = (-1, -1)

/// What the client sets on entering: the alternate screen, autowrap off (DECAWM): a row that a terminal draws wider
/// than it was counted (an emoji sequence it does not join) is cut at the right edge instead of running onto the next
/// row's cells; bracketed paste (2004): a paste arrives marked, so its line breaks are not Enter presses.
private let enterModes: StaticString = "\u{1B}[?1049h\u{1B}[?7l\u{1B}[?2004h\u{1B}[H\u{1B}[2J"
/// The same modes undone, and the cursor shown, in reverse order.
private let leaveModes: StaticString = "\u{1B}[?2004l\u{1B}[?7h\u{1B}[?1049l\u{1B}[?25h"

private func writeStatic(_ text: StaticString) {
    _ = Glibc.write(1, text.utf8Start, text.utf8CodeUnitCount)
}

/// Job control (SIGTSTP, from Ctrl-Z or from outside): the terminal is given back as the shell expects it (cooked,
/// main screen, modes reset), the process stops with the default action, and once continued raw mode and the modes
/// come back and the loop is woken to redraw. Async-signal-safe calls only (write, tcsetattr, signal, sigprocmask,
/// raise).
private func suspendOnSignal(_ number: Int32) {
    let wasRaw = rawModeActive
    RawTerminal.restore()
    signal(SIGTSTP, SIG_DFL)
    var tstp = sigset_t()
    sigemptyset(&tstp)
    sigaddset(&tstp, SIGTSTP)
    sigprocmask(SIG_UNBLOCK, &tstp, nil)
    raise(SIGTSTP)  // stops here until SIGCONT
    signal(SIGTSTP, suspendOnSignal)
    if wasRaw { resumeRawMode() }
    wakeLoop()
}

/// A continue after a stop the client could not see (SIGSTOP): the terminal may have been changed meanwhile, so raw
/// mode and the modes are put back, and the screen is redrawn whole. (After a SIGTSTP, `suspendOnSignal` does this.)
private func continueOnSignal(_ number: Int32) {
    if rawModeActive { resumeRawMode() }
    wakeLoop()
}

private func resumeRawMode() {
    // In a background process group this waits (SIGTTOU) until the shell's `fg` hands the terminal back.
    tcsetattr(0, TCSAFLUSH, &rawSettings)
    rawModeActive = true
    writeStatic(enterModes)
}

private func wakeLoop() {
    var byte: UInt8 = 1
    if resumePipe.write >= 0 { _ = Glibc.write(resumePipe.write, &byte, 1) }
}

/// Raw mode via termios (no line buffering, no echo, Ctrl-C as a byte), the alternate screen without autowrap, and a
/// guaranteed restore: on `restore()`, on SIGTERM/SIGHUP/SIGINT, when the process exits, and while it is stopped
/// (SIGTSTP).
enum RawTerminal {
    /// Enters raw mode and the alternate screen; false when stdin is not a terminal.
    static func enter() -> Bool {
        guard isatty(0) == 1, tcgetattr(0, &savedSettings) == 0 else { return false }
        var raw = savedSettings
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        raw.c_cc.6 = 1  // VMIN
        raw.c_cc.5 = 0  // VTIME
        guard tcsetattr(0, TCSAFLUSH, &raw) == 0 else { return false }
        rawSettings = raw
        rawModeActive = true
        for signalNumber in [SIGTERM, SIGHUP, SIGINT, SIGQUIT] {
            signal(signalNumber) { number in
                RawTerminal.restore()
                _exit(128 + number)
            }
        }
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)  // a full pipe never blocks the handler
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            resumePipe = (fds[0], fds[1])
        }
        signal(SIGTSTP, suspendOnSignal)
        signal(SIGCONT, continueOnSignal)
        atexit { RawTerminal.restore() }
        writeStatic(enterModes)
        return true
    }

    /// Leaves the alternate screen and puts the saved settings back (async-signal-safe calls only).
    static func restore() {
        guard rawModeActive else { return }
        rawModeActive = false
        writeStatic(leaveModes)
        tcsetattr(0, TCSAFLUSH, &savedSettings)
    }

    /// Ctrl-Z: stops the client as a shell's job, the terminal given back first (see `suspendOnSignal`).
    static func suspend() { raise(SIGTSTP) }

    /// The descriptor that becomes readable when the client was continued after a stop (-1 outside raw mode): the
    /// loop polls it so a continue wakes it.
    static var resumeDescriptor: Int32 { resumePipe.read }

    /// Whether `fd` is the client's own (the resume pipe), not one a parent leaked.
    static func owns(_ fd: Int32) -> Bool { fd == resumePipe.read || fd == resumePipe.write }

    /// Whether the client was continued since the last call (the screen must then be drawn whole); drains the pipe.
    static func takeResumed() -> Bool {
        guard resumePipe.read >= 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 64)
        var resumed = false
        while Glibc.read(resumePipe.read, &buffer, buffer.count) > 0 { resumed = true }
        return resumed
    }

    /// The terminal's size, 80x24 when unknown.
    static func size() -> (columns: Int, rows: Int) {
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 { return (Int(size.ws_col), Int(size.ws_row)) }
        return (80, 24)
    }

    static func write(_ text: String) { ClientRunner.writeAll(1, text) }
}
