import Foundation
import Testing

/// HeraldKit is what apps link: its public declarations speak in the library's own typed values. They name no JSON
/// (the core's script output), no descriptor or loop handle (the IO thread's), and none of the core's internal types,
/// so the core can change behind it and an app never holds something only one thread may touch.
@Suite("HeraldKit's public surface shows no JSON, descriptors, loop handles or core internals")
struct LibrarySurfaceTests {
    /// Words a public declaration of the library must not contain.
    static let forbidden = [
        "JSONValue", "JSONField", "JSONEncoder", "JSONDecoder", "Int32", "Descriptor", "descriptor", "EventLoop", "pollfd", "Thread",
        "ClientCore", "ClientRunner", "ClientCommand", "ClientEvent", "ClientInput", "ClientOptions", "SessionBridge", "ScriptOutput",
    ]

    /// The public declaration lines of the Swift files in `folder` that contain a forbidden word, as `file: line`.
    static func violations(in sources: [(name: String, text: String)]) -> [String] {
        var found: [String] = []
        for (name, text) in sources {
            for line in text.split(separator: "\n") {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard code.hasPrefix("public ") || code.hasPrefix("open ") else { continue }
                // A word counts whole: `descriptor` in `clientMessageId` would not, `Int32` in `Int32?` does.
                let words = Set(code.split { !$0.isLetter && !$0.isNumber }.map(String.init))
                if forbidden.contains(where: words.contains) { found.append("\(name): \(code)") }
            }
        }
        return found
    }

    @Test("No public declaration of Client/HeraldKit names JSON, a descriptor, a loop or thread, or a core type")
    func publicDeclarationsStayTyped() throws {
        let folder = ImportRulesTests.root.appendingPathComponent("Client/HeraldKit")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter { $0.pathExtension == "swift" }
        #expect(files.count >= 5, "the library's sources were found")
        let sources = try files.map { ($0.lastPathComponent, try String(contentsOf: $0, encoding: .utf8)) }
        #expect(Self.violations(in: sources) == [])
    }

    /// The script's JSON: only script mode writes it (client-script.md), from the core's typed values.
    static let scriptJSON = ["JSONValue", "JSONField", "ScriptOutput", "StateEncoder", "terminalSafeText"]

    @Test("The terminal UI and HeraldKit take the core's typed answers and events: no file of theirs touches the script's JSON")
    func userInterfacesReadNoJSON() throws {
        var found: [String] = []
        for folder in ["Client/HeraldClient/Interactive", "Client/HeraldKit"] {
            let base = ImportRulesTests.root.appendingPathComponent(folder)
            let files = try FileManager.default.contentsOfDirectory(at: base, includingPropertiesForKeys: nil).filter { $0.pathExtension == "swift" }
            #expect(!files.isEmpty, "\(folder) was found")
            for file in files {
                let text = try String(contentsOf: file, encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = Set(line.split { !$0.isLetter && !$0.isNumber }.map(String.init))
                    if Self.scriptJSON.contains(where: words.contains) { found.append("\(folder)/\(file.lastPathComponent): \(line)") }
                }
            }
        }
        #expect(found == [])
    }

    @Test("The check catches a public JSON value or descriptor, and lets private ones and look-alike words pass (so the suite can fail)")
    func checkCanFail() {
        let planted = """
            public var raw: JSONValue
            public let inputDescriptor: Int32
            private let wakeRead: Int32
            public var clientMessageId: String
            """
        #expect(Self.violations(in: [("Planted.swift", planted)]).count == 2)
    }
}
