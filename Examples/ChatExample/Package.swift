// swift-tools-version: 6.2
// An app that embeds Herald: it depends on the HeraldKit library by URL and exact version, as apps do. SwiftPM
// refuses unsafeFlags in a versioned dependency (whose manifest predates tools 6.2: .ci/example-app reads Herald's as
// 6.1), so this building proves the library's closure has none.
//
// The URL and version come from the environment (.ci/example-app points them at a tagged clone); an app writes its
// own: .package(url: "https://git.example.com/herald.git", exact: "1.0.0").
import Foundation
import PackageDescription

let environment = ProcessInfo.processInfo.environment
let heraldURL = environment["HERALD_PACKAGE_URL"] ?? "https://github.com/herald-chat/herald.git"
let heraldVersion = Version(environment["HERALD_PACKAGE_VERSION"] ?? "0.7.0") ?? "0.7.0"

let package = Package(
    name: "ChatExample",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: heraldURL, exact: heraldVersion)],
    targets: [
        .executableTarget(name: "ChatExample", dependencies: [.product(name: "HeraldKit", package: "herald")]),
    ],
    swiftLanguageModes: [.v6]
)
