import Foundation

/// A tmux server of our own (private socket) with one 80x24 window running a shell command: drives the
/// interactive `herald` like a terminal user. Every tmux call goes through ``runToCompletion(_:_:environment:timeout:)``,
/// since `tmux new-session` leaves a daemon behind.
public final class TmuxSession {
    /// The private socket name (`tmux -L`).
    public let socket = "herald-test-\(UUID().uuidString.prefix(8))"
    /// The tmux executable.
    public let tmux: String

    /// Starts the session running `command` in a `columns` x `rows` window.
    public init(command: String, columns: Int = 80, rows: Int = 24) throws {
        tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/tmux"
        try tmuxCommand(["-f", "/dev/null", "new-session", "-d", "-x", String(columns), "-y", String(rows), "-s", "main", command])
    }

    @discardableResult
    private func tmuxCommand(_ arguments: [String]) throws -> CompletedProcess {
        try runToCompletion(tmux, ["-L", socket] + arguments, timeout: .seconds(30))
    }

    /// Types text (literally), then Enter when asked.
    public func type(_ text: String, enter: Bool = true) throws {
        try tmuxCommand(["send-keys", "-t", "main", "-l", text])
        if enter { try tmuxCommand(["send-keys", "-t", "main", "Enter"]) }
    }

    /// Pastes `text` as a terminal does: bracketed (`ESC [200~ … ESC [201~`) when the program asked for it.
    public func paste(_ text: String) throws {
        try tmuxCommand(["set-buffer", "-b", "herald-paste", text])
        try tmuxCommand(["paste-buffer", "-p", "-d", "-b", "herald-paste", "-t", "main"])
    }

    /// Presses a key by tmux name (`C-c`, `Up`).
    public func key(_ name: String) throws { try tmuxCommand(["send-keys", "-t", "main", name]) }

    /// Presses keys and types words in one go (`["one", "Enter", "two", "Enter"]`), as fast as a paste or a fast typist.
    public func keys(_ names: [String]) throws { try tmuxCommand(["send-keys", "-t", "main"] + names) }

    /// Resizes the window, as a person dragging the terminal's corner would.
    public func resize(columns: Int, rows: Int) throws {
        try tmuxCommand(["resize-window", "-t", "main", "-x", String(columns), "-y", String(rows)])
    }

    /// The visible screen.
    public func screen() throws -> String { try tmuxCommand(["capture-pane", "-p", "-t", "main"]).standardOutput }

    /// The visible screen with its colours and attributes as escape sequences (`capture-pane -e`).
    public func screenWithAttributes() throws -> String { try tmuxCommand(["capture-pane", "-e", "-p", "-t", "main"]).standardOutput }

    /// Appends every byte the program writes to the pane from now on to the file at `path` (`pipe-pane`): what a
    /// capture cannot show, such as a bell (BEL) or the escape sequences as written.
    public func recordOutput(to path: String) throws {
        try tmuxCommand(["pipe-pane", "-t", "main", "-o", "cat >> '\(path)'"])
    }

    /// A tmux format of the pane, e.g. `#{pane_title}` (set by OSC 0/2) or `#{window_name}` (set by ESC k).
    public func display(_ format: String) throws -> String {
        try tmuxCommand(["display-message", "-p", "-t", "main", format]).standardOutput.trimmingCharacters(in: .newlines)
    }

    /// The paste buffers' contents (an OSC 52 clipboard write makes one when `set-clipboard` is on).
    public func buffers() throws -> String { try tmuxCommand(["list-buffers"]).standardOutput }

    /// Sets an option of the window (`allow-rename on`, so a program could rename it with ESC k) or, with `global`,
    /// of the server (`set-clipboard on`, so OSC 52 reaches the buffers): what a victim's tmux may well allow.
    public func setOption(_ name: String, _ value: String, global: Bool = false) throws {
        try tmuxCommand(global ? ["set-option", "-s", name, value] : ["set-window-option", "-t", "main", name, value])
    }

    /// Waits until the screen satisfies `predicate`; throws with the last screen at the deadline.
    @discardableResult
    public func waitScreen(_ what: String, timeout: Duration = .seconds(10), _ predicate: (String) -> Bool) throws -> String {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        while ContinuousClock.now < deadline {
            last = try screen()
            if predicate(last) { return last }
            usleep(50_000)
        }
        throw ProcessHarnessError("screen never showed \(what); last screen:\n\(last)")
    }

    /// Waits until the screen satisfies `predicate` and two captures in a row agree: a capture taken while the client
    /// is still writing a frame can hold old and new rows at once, which a test of what one frame shows must not read.
    @discardableResult
    public func waitSettledScreen(_ what: String, timeout: Duration = .seconds(10), _ predicate: (String) -> Bool) throws -> String {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        while ContinuousClock.now < deadline {
            last = try screen()
            if predicate(last) {
                usleep(50_000)
                let again = try screen()
                if again == last { return last }
                continue
            }
            usleep(50_000)
        }
        throw ProcessHarnessError("screen never settled showing \(what); last screen:\n\(last)")
    }

    /// Whether the session still exists.
    public var isAlive: Bool { (try? tmuxCommand(["has-session", "-t", "main"]).status) == 0 }

    deinit { _ = try? tmuxCommand(["kill-server"]) }
}
