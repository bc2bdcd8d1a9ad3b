import Foundation

/// The targets of a SwiftPM manifest as Package.swift writes them: each target's name, folder and the modules its
/// `dependencies:` list names (a `.product(name:package:)` counts as its product's module, which is how every product
/// this package uses is named). Read from the manifest's text, not `swift package dump-package`, so the test needs no
/// second SwiftPM run (that would wait on the lock of the build running the tests).
struct PackageManifest {
    struct Target: Equatable {
        var name: String
        var folder: String
        var dependencies: Set<String>
    }

    var targets: [Target]

    /// The kinds of target whose sources are Swift files in `path:`; `.systemLibrary` has no Swift sources.
    static let sourceKinds = [".target(", ".executableTarget(", ".testTarget("]

    init(text: String) {
        var targets: [Target] = []
        for kind in Self.sourceKinds {
            var searchFrom = text.startIndex
            while let call = text.range(of: kind, range: searchFrom..<text.endIndex) {
                searchFrom = call.upperBound
                guard let body = Self.balanced(text, from: call.upperBound, open: "(", close: ")"),
                      let name = Self.quoted(after: "name:", in: body), let folder = Self.quoted(after: "path:", in: body) else { continue }
                var dependencies: Set<String> = []
                if let list = body.range(of: "dependencies:"), let open = body.range(of: "[", range: list.upperBound..<body.endIndex),
                   let items = Self.balanced(body, from: open.upperBound, open: "[", close: "]") {
                    dependencies = Self.dependencyNames(items)
                }
                targets.append(Target(name: name, folder: folder, dependencies: dependencies))
            }
        }
        self.targets = targets
    }

    /// The text from `start` up to the bracket that closes the one just before `start`; nil if it never closes.
    static func balanced(_ text: String, from start: String.Index, open: Character, close: Character) -> String? {
        var depth = 1
        var index = start
        while index < text.endIndex {
            let character = text[index]
            if character == open { depth += 1 } else if character == close {
                depth -= 1
                if depth == 0 { return String(text[start..<index]) }
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// The first string literal after `label` in `text`.
    static func quoted(after label: String, in text: String) -> String? {
        guard let labelRange = text.range(of: label),
              let first = text.range(of: "\"", range: labelRange.upperBound..<text.endIndex),
              let last = text.range(of: "\"", range: first.upperBound..<text.endIndex) else { return nil }
        return String(text[first.upperBound..<last.lowerBound])
    }

    /// `"HeraldBytes", .product(name: "Logging", package: "swift-log")` → HeraldBytes, Logging: the `package:` string
    /// names a package, not a module, so it is dropped.
    static func dependencyNames(_ items: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(items)
        while let first = rest.firstIndex(of: "\"") {
            let afterOpen = rest.index(after: first)
            guard let last = rest[afterOpen...].firstIndex(of: "\"") else { break }
            let before = rest[..<first].trimmingCharacters(in: .whitespaces)
            if !before.hasSuffix("package:") { names.insert(String(rest[afterOpen..<last])) }
            rest = rest[rest.index(after: last)...]
        }
        return names
    }
}
