import Glibc
import HeraldRules

/// Placeholder for the interactive terminal; replaced below when the UI lands.
final class TerminalFrontEnd: ClientFrontEnd {
    private let script = ScriptFrontEnd()
    var inputEnded: Bool { script.inputEnded }
    func input(_ bytes: ArraySlice<UInt8>) -> [String] { script.input(bytes) }
    func deliver(_ line: JSONValue) { script.deliver(line) }
    func render(_ core: ClientCore, now: Instant) {}
    func nextRedraw(now: Instant) -> Instant? { nil }
    func finish() {}
}
