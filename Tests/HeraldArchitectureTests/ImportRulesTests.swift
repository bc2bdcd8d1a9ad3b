import Foundation
import Testing

/// ARCHITECTURE.md's module table is the rule for what each module may import; this test holds the tree to it, so a
/// module cannot start depending on what it must not (the sync core on sockets, the rules on IO) without the table,
/// and so the review, changing first.
@Suite("ARCHITECTURE.md: every module imports only what its row allows")
struct ImportRulesTests {
    /// One row of the table: a module, its folder, and the modules it may import.
    struct Rule {
        var module: String
        var folder: String
        var allowed: Set<String>
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Rows look like: | `HeraldSync` | `Server/HeraldSync` | sync logic … | `HeraldStore`, `HeraldProtocol` |
    /// (the last cell lists what may be imported, or says "nothing").
    static func rules() throws -> [Rule] {
        let text = try String(contentsOf: root.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
        var rules: [Rule] = []
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5 else { continue }
            let names = { (cell: String) in cell.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) } }
            guard let module = names(cells[1]).first, let folder = names(cells[2]).first, folder.contains("/") else { continue }
            rules.append(Rule(module: module, folder: folder, allowed: Set(names(cells[cells.count - 2]).filter { $0 != "nothing" })))
        }
        return rules
    }

    static let accessLevels: Set<String> = ["public", "package", "internal", "fileprivate", "private"]

    /// The modules `folder`'s Swift files import, with the first file importing each.
    static func imports(in folder: String) -> [String: String] {
        var found: [String: String] = [:]
        let base = root.appendingPathComponent(folder)
        guard let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return found }
        for case let file as URL in files where file.pathExtension == "swift" {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            // Lines inside a multi-line string literal are text (a Python script a test runs says `import zlib`).
            var inStringLiteral = false
            for line in text.split(separator: "\n") {
                let wasInStringLiteral = inStringLiteral
                if line.components(separatedBy: "\"\"\"").count % 2 == 0 { inStringLiteral.toggle() }
                guard !wasInStringLiteral else { continue }
                // `@testable import X`, `public import X`: attributes and access levels come before `import`
                // (an attribute with arguments, such as `@Test("an import …")`, starts no import).
                let words = Array(line.split(separator: " ").drop { word in
                    Self.accessLevels.contains(String(word))
                        || (word.hasPrefix("@") && word.dropFirst().allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" })
                })
                guard words.count >= 2, words[0] == "import" else { continue }
                // `import struct Foundation.Data` names the module after the kind.
                let target = words.count >= 3 ? words[2] : words[1]
                let module = String(target.split(separator: ".")[0])
                if found[module] == nil { found[module] = file.path.replacingOccurrences(of: root.path + "/", with: "") }
            }
        }
        return found
    }

    @Test("The table covers every module folder under Shared/, Server/ and Client/")
    func everyModuleHasARow() throws {
        let folders = Set(try Self.rules().map(\.folder))
        #expect(!folders.isEmpty)
        for top in ["Shared", "Server", "Client"] {
            let entries = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(top).path)
            for entry in entries.sorted() where !entry.hasPrefix(".") {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("\(top)/\(entry)").path, isDirectory: &isDirectory),
                      isDirectory.boolValue else { continue }
                #expect(folders.contains("\(top)/\(entry)"), "ARCHITECTURE.md has no row for \(top)/\(entry)")
            }
        }
    }

    @Test("No module imports a module its row does not allow")
    func importsAreAllowed() throws {
        for rule in try Self.rules() {
            for (module, file) in Self.imports(in: rule.folder).sorted(by: { $0.key < $1.key }) where !rule.allowed.contains(module) {
                Issue.record("\(rule.module) may not import \(module) (\(file)); ARCHITECTURE.md allows: \(rule.allowed.sorted().joined(separator: ", "))")
            }
        }
    }

    @Test("The table's parser reads a row, and the check catches a forbidden import (so the suite can fail)")
    func checkCanFail() throws {
        let rules = try Self.rules()
        let sync = try #require(rules.first { $0.module == "HeraldSync" })
        #expect(!sync.allowed.contains("HeraldNet"))
        #expect(!sync.allowed.contains("CLibPQ"))
        let rulesRow = try #require(rules.first { $0.module == "HeraldRules" })
        #expect(rulesRow.allowed.isEmpty)
        #expect(Self.imports(in: "Server/HeraldNet")["HeraldNet"] == nil)
        #expect(Self.imports(in: "Server/HeraldServer")["HeraldNet"] != nil)
    }
}
