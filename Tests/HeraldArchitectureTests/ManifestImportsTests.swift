import Foundation
import Testing

/// Package.swift declares every module a target imports. SwiftPM lets a module import whatever its dependencies
/// depend on, so an undeclared import compiles until someone drops the dependency that brought it in; this test reads
/// the manifest itself (ARCHITECTURE.md's table is checked by ``ImportRulesTests``) and fails on such an import.
@Suite("Package.swift: every import of every target is one of its declared dependencies")
struct ManifestImportsTests {
    /// Modules of the toolchain and the platform: always there, never a manifest dependency.
    static let platformModules: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Musl", "Dispatch", "Synchronization",
        "Testing", "XCTest", "_Concurrency", "PackageDescription",
    ]

    static func manifest() throws -> PackageManifest {
        PackageManifest(text: try String(contentsOf: ImportRulesTests.root.appendingPathComponent("Package.swift"), encoding: .utf8))
    }

    /// One line per import that `target`'s manifest entry does not declare.
    static func undeclaredImports(of target: PackageManifest.Target, imports: [String: String]) -> [String] {
        imports.sorted(by: { $0.key < $1.key }).compactMap { module, file in
            guard module != target.name, !platformModules.contains(module), !target.dependencies.contains(module) else { return nil }
            return "\(target.name) imports \(module) (\(file)) but Package.swift does not list it in its dependencies"
        }
    }

    @Test("Every target's imports are declared in its Package.swift dependencies")
    func everyImportIsDeclared() throws {
        let targets = try Self.manifest().targets
        #expect(targets.count >= 20, "read only \(targets.count) targets from Package.swift")
        for target in targets {
            for problem in Self.undeclaredImports(of: target, imports: ImportRulesTests.imports(in: target.folder)) {
                Issue.record(Comment(rawValue: problem))
            }
        }
    }

    @Test("The manifest reader reads names, folders and products, and an undeclared import is caught (so the suite can fail)")
    func checkCanFail() throws {
        let manifest = PackageManifest(text: """
            .target(name: "A", dependencies: ["B", .product(name: "Logging", package: "swift-log")], path: "Server/A"),
            .systemLibrary(name: "CZ", path: "Shared/CZ"),
            .testTarget(name: "ATests", path: "Tests/ATests", swiftSettings: settings(["x"])),
            """)
        #expect(manifest.targets == [
            .init(name: "A", folder: "Server/A", dependencies: ["B", "Logging"]),
            .init(name: "ATests", folder: "Tests/ATests", dependencies: []),
        ])
        let a = manifest.targets[0]
        #expect(Self.undeclaredImports(of: a, imports: ["B": "x", "Logging": "x", "Foundation": "x", "A": "x"]).isEmpty)
        #expect(Self.undeclaredImports(of: a, imports: ["C": "Server/A/F.swift"]).count == 1)

        // The real manifest: HeraldServer's TLS listener imports HeraldTLS, which it must declare.
        let server = try #require(try Self.manifest().targets.first { $0.name == "HeraldServer" })
        #expect(server.folder == "Server/HeraldServer")
        #expect(ImportRulesTests.imports(in: server.folder)["HeraldTLS"] != nil)
    }

    @Test("An import inside a multi-line string literal (a script a test runs) is text, not an import")
    func stringLiteralsAreNotImports() throws {
        let imports = ImportRulesTests.imports(in: "Tests/HeraldDeflateTests")
        #expect(imports["zlib"] == nil && imports["sys"] == nil)
        #expect(imports["HeraldDeflate"] != nil)
    }
}
