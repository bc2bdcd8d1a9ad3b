import Glibc
import HeraldProtocol
import HeraldRules

/// The interactive terminal: header with the Messages and bell badges, the toast banner with its countdown,
/// the current scene drawn by its presenter, the latest events, and an input line taking the script commands.
/// Plain ANSI escapes; fits 80x24.
final class TerminalFrontEnd: ClientFrontEnd {
    private(set) var inputEnded = false
    private var buffer: [UInt8] = []
    private var escape = 0
    private var recent: [String] = []
    private var lastFrame = ""
    private let active: Bool

    init() {
        active = RawTerminal.enter()
    }

    // MARK: - Input

    func input(_ bytes: ArraySlice<UInt8>) -> [String] {
        if bytes.isEmpty {
            inputEnded = true
            return []
        }
        var lines: [String] = []
        for byte in bytes {
            if escape > 0 {
                // Skip ESC [ … final byte (arrow keys and friends).
                if escape == 1 && byte != UInt8(ascii: "[") && byte != UInt8(ascii: "O") { escape = 0 } else if escape > 1 && (0x40...0x7E).contains(byte) { escape = 0 } else { escape += 1 }
                continue
            }
            switch byte {
            case 0x03, 0x04:  // Ctrl-C, Ctrl-D: leave cleanly
                lines.append("quit")
                inputEnded = true
            case 0x1B: escape = 1
            case 0x7F, 0x08: if !buffer.isEmpty { buffer.removeLast() }
            case 0x15: buffer.removeAll()  // Ctrl-U
            case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                if !line.isEmpty {
                    note("> \(line)")
                    lines.append(line)
                }
            default:
                if byte >= 0x20 { buffer.append(byte) }
            }
        }
        return lines
    }

    // MARK: - Output

    func deliver(_ line: JSONValue) {
        guard case .string(let type)? = line["type"] else { return }
        switch type {
        case "ok":
            note("ok \(Self.text(line["cmd"]))\(line["conversation"].map { " \(Self.text($0))" } ?? "")")
        case "error":
            note("error: \(Self.text(line["message"]))")
        case "event":
            let name = Self.text(line["event"])
            switch name {
            case "message": note("\(Self.text(line["senderName"])): \(Self.text(line["text"]))")
            case "connected": note("connected")
            case "disconnected": note("disconnected: reconnecting…")
            case "push": note("push: \(Self.text(line["title"])): \(Self.text(line["preview"]))")
            case "route": note("opened \(Self.text(line["url"]))")
            default: break
            }
        default:
            break
        }
    }

    private func note(_ text: String) {
        recent.append(text)
        if recent.count > 3 { recent.removeFirst(recent.count - 3) }
    }

    static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text)?: text
        case .int(let number)?: String(number)
        case .bool(let flag)?: String(flag)
        default: ""
        }
    }

    // MARK: - Drawing

    func render(_ core: ClientCore, now: Instant) {
        guard active else { return }
        let (width, height) = RawTerminal.size()
        let model = core.screenModel(now: now)
        let presenter = ScenePresenters.presenter(for: model.scene)
        var lines: [String] = []
        let status = model.connected ? "online" : "connecting…"
        let badge = model.badgeText.isEmpty ? "" : " (\(model.badgeText))"
        let bell = model.bellBadgeText.isEmpty ? "" : " (\(model.bellBadgeText))"
        lines.append(fit("Herald · \(model.user) · \(status) · Messages\(badge) · Bell\(bell)", width))
        var banner = presenter.toastOverlay(model, width: width)
        while banner.count < 2 { banner.append("") }
        lines += banner.prefix(2)
        lines.append(String(repeating: "─", count: min(width, 80)))
        let bodyHeight = max(1, height - lines.count - 5)
        var body = presenter.body(model, width: width, height: bodyHeight)
        if body.count > bodyHeight { body = Array(body.prefix(bodyHeight)) }
        while body.count < bodyHeight { body.append("") }
        lines += body
        lines.append(String(repeating: "─", count: min(width, 80)))
        var log = recent.map { fit($0, width) }
        while log.count < 3 { log.insert("", at: 0) }
        lines += log
        let prompt = "> " + String(decoding: buffer, as: UTF8.self)
        var frame = "\u{1B}[H"
        for line in lines.prefix(height - 1) { frame += line + "\u{1B}[K\r\n" }
        frame += fit(prompt, width) + "\u{1B}[K\u{1B}[J"
        guard frame != lastFrame else { return }
        lastFrame = frame
        RawTerminal.write(frame)
    }

    func nextRedraw(now: Instant) -> Instant? {
        active ? now + 250 : nil
    }

    func finish() {
        RawTerminal.restore()
    }
}
