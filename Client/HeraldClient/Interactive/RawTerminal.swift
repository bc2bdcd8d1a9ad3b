import Glibc

/// The terminal settings saved before raw mode, restored on exit and from signal handlers.
nonisolated(unsafe) private var savedSettings = termios()
nonisolated(unsafe) private var rawModeActive = false

/// Raw mode via termios (no line buffering, no echo, Ctrl-C as a byte), the alternate screen without autowrap, and a
/// guaranteed restore: on `restore()`, on SIGTERM/SIGHUP/SIGINT, and when the process exits.
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
        rawModeActive = true
        for signalNumber in [SIGTERM, SIGHUP, SIGINT, SIGQUIT] {
            signal(signalNumber) { number in
                RawTerminal.restore()
                _exit(128 + number)
            }
        }
        atexit { RawTerminal.restore() }
        // Autowrap off (DECAWM): a row that a terminal draws wider than it was counted (an emoji sequence it does not
        // join) is cut at the right edge instead of running onto the next row's cells.
        // Bracketed paste (2004): a paste arrives marked, so its line breaks are not Enter presses.
        write("\u{1B}[?1049h\u{1B}[?7l\u{1B}[?2004h\u{1B}[H\u{1B}[2J")
        return true
    }

    /// Leaves the alternate screen and puts the saved settings back (async-signal-safe calls only).
    static func restore() {
        guard rawModeActive else { return }
        rawModeActive = false
        let leave: StaticString = "\u{1B}[?2004l\u{1B}[?7h\u{1B}[?1049l\u{1B}[?25h"
        _ = Glibc.write(1, leave.utf8Start, leave.utf8CodeUnitCount)
        tcsetattr(0, TCSAFLUSH, &savedSettings)
    }

    /// The terminal's size, 80x24 when unknown.
    static func size() -> (columns: Int, rows: Int) {
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 { return (Int(size.ws_col), Int(size.ws_row)) }
        return (80, 24)
    }

    static func write(_ text: String) { ClientRunner.writeAll(1, text) }
}
