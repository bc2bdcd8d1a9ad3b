// swift-tools-version: 6.2
// Herald: a realtime sync server and client on our own WebSocket stack (no SwiftNIO).
import PackageDescription

/// One set of settings for every Swift target: Swift 6 mode plus the upcoming features we rely on.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The server's hot-path modules (sockets, fan-out) in release builds: no run-time exclusivity checks. Only for
/// targets the HeraldKit library does not reach: an app adds HeraldKit as a versioned dependency, and SwiftPM refuses
/// `unsafeFlags` there (for manifests before tools 6.2; .ci/example-app holds the library to that rule). (HeraldBytes and HeraldWebSocket, which both sides link, keep no class `var` or global
/// that such a check would guard: their release code is the same with and without the flag.)
let hotPathSettings: [SwiftSetting] = swiftSettings + [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

let package = Package(
    name: "Herald",
    products: [
        .executable(name: "herald-server", targets: ["HeraldServerCLI"]),
        .executable(name: "herald", targets: ["HeraldCLI"]),
        .executable(name: "herald-bench", targets: ["HeraldBench"]),
        // The client as a library an app embeds (docs: Client/HeraldKit/HeraldKit.docc).
        .library(name: "HeraldKit", targets: ["HeraldKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        // `swift package generate-documentation --target HeraldKit` (CI builds the library's documentation).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: - C shims and system libraries
        .target(name: "CLinux", path: "Server/CLinux", cSettings: [.define("_GNU_SOURCE")]),
        .systemLibrary(name: "CSQLite", path: "Server/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", path: "Server/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // Outbound HTTP/2 and TLS to push providers (not our hot path): libcurl with nghttp2, as Debian builds it.
        .systemLibrary(name: "CCurl", path: "Server/CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CZlib", path: "Shared/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "COpenSSL", path: "Shared/COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),

        // MARK: - Shared (no IO)
        .target(name: "HeraldClock", path: "Shared/HeraldClock", swiftSettings: swiftSettings),
        .target(name: "HeraldBytes", path: "Shared/HeraldBytes", swiftSettings: swiftSettings),
        .target(name: "HeraldWebSocket", dependencies: ["HeraldBytes"], path: "Shared/HeraldWebSocket", swiftSettings: swiftSettings),
        .target(name: "HeraldProtocol", dependencies: ["HeraldRules"], path: "Shared/HeraldProtocol", exclude: ["PROTOCOL.md"], swiftSettings: swiftSettings),
        .target(name: "HeraldRules", path: "Shared/HeraldRules", swiftSettings: swiftSettings),
        .target(name: "HeraldDeflate", dependencies: ["CZlib", "HeraldBytes", "HeraldWebSocket"], path: "Shared/HeraldDeflate", swiftSettings: swiftSettings),
        .target(name: "HeraldTLS", dependencies: ["COpenSSL", "HeraldCrypto"], path: "Shared/HeraldTLS", swiftSettings: swiftSettings),
        // The one crypto module (push JWTs, Web Push encryption, VAPID, HMAC, SHA-256, random) of the server and the client.
        .target(name: "HeraldCrypto", dependencies: ["COpenSSL", "HeraldBytes"], path: "Shared/HeraldCrypto", swiftSettings: swiftSettings),
        // HERALD_<NAME> for every option of the executables' ArgumentParser commands.
        .target(
            name: "HeraldCommandLine", dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")], path: "Shared/HeraldCommandLine",
            swiftSettings: swiftSettings),

        // MARK: - Server
        // The one handle of a connection (loop, descriptor, generation): event loops, engine and sync core share it.
        .target(name: "HeraldHandle", path: "Server/HeraldHandle", swiftSettings: hotPathSettings),
        .target(name: "HeraldNet", dependencies: ["CLinux", "HeraldTLS", "HeraldBytes", "HeraldClock", "HeraldHandle"], path: "Server/HeraldNet", swiftSettings: hotPathSettings),
        .target(name: "HeraldStorePostgres", dependencies: ["CLibPQ", "HeraldStore"], path: "Server/HeraldStorePostgres", exclude: ["README.md"], swiftSettings: swiftSettings),
        // The store's protocol, records and errors, without an implementation: what the sync core needs.
        .target(name: "HeraldStoreProtocol", path: "Server/HeraldStoreProtocol", swiftSettings: swiftSettings),
        .target(name: "HeraldStore", dependencies: ["CSQLite", "HeraldStoreProtocol"], path: "Server/HeraldStore", exclude: ["README.md"], swiftSettings: swiftSettings),
        // Delivery to devices without a connection: provider requests (APNs, FCM, Web Push, webhooks) and the workers that
        // drain the store's push queue over libcurl, off the event loops and the sync thread.
        .target(
            name: "HeraldPush",
            dependencies: ["CCurl", "HeraldCrypto", "HeraldProtocol", "HeraldStoreProtocol", .product(name: "Logging", package: "swift-log")],
            path: "Server/HeraldPush",
            swiftSettings: swiftSettings
        ),
        // The sync logic without IO (no sockets, no threads, no PostgreSQL): HeraldServer drives it from its sync thread.
        // Full cross-module optimisation in release, so `SyncCore<SessionHandle>` is specialised in HeraldServer as it
        // was when both lived in one module (no generic dispatch per device on the fan-out path).
        .target(
            name: "HeraldSync",
            dependencies: ["HeraldStoreProtocol", "HeraldProtocol", "HeraldRules", "HeraldBytes", "HeraldHandle", .product(name: "Logging", package: "swift-log")],
            path: "Server/HeraldSync",
            swiftSettings: hotPathSettings + [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]
        ),
        .target(
            name: "HeraldServer",
            dependencies: [
                "HeraldNet", "HeraldBytes", "HeraldClock", "HeraldWebSocket", "HeraldDeflate", "HeraldProtocol", "HeraldRules", "HeraldStoreProtocol", "HeraldSync",
                "HeraldCrypto", "HeraldTLS",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Server/HeraldServer",
            // openapi.json is the one copy of the API's description: compiled in as bytes, served as they are.
            resources: [.embedInCode("API/openapi.json")],
            swiftSettings: hotPathSettings
        ),
        .executableTarget(
            name: "HeraldServerCLI",
            dependencies: [
                "HeraldServer", "HeraldStore", "HeraldStorePostgres", "HeraldPush", "HeraldProtocol", "HeraldCommandLine", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Server/HeraldServerCLI",
            swiftSettings: swiftSettings
        ),

        // MARK: - Client
        .target(
            name: "HeraldClient",
            dependencies: ["HeraldClock", "HeraldWebSocket", "HeraldProtocol", "HeraldRules", "HeraldTLS", "HeraldDeflate", "HeraldCrypto"],
            path: "Client/HeraldClient",
            swiftSettings: swiftSettings
        ),
        // The library apps link: typed connection, events and commands over HeraldClient's core.
        .target(
            name: "HeraldKit",
            dependencies: ["HeraldClient", "HeraldProtocol", "HeraldRules"],
            path: "Client/HeraldKit",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "HeraldCLI",
            dependencies: ["HeraldClient", "HeraldProtocol", "HeraldRules", "HeraldCommandLine", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Client/HeraldCLI",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "HeraldBench",
            dependencies: ["HeraldClock", "HeraldWebSocket", "HeraldProtocol", "HeraldCrypto", "HeraldCommandLine", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Client/HeraldBench",
            // The load generator's per-frame bookkeeping lives in classes: release builds skip the run-time
            // exclusivity checks there too (~7% of its CPU in a /sync fan-out), as the server's hot path does.
            swiftSettings: hotPathSettings
        ),

        // MARK: - Tests
        .target(name: "HeraldTestSupport", dependencies: ["HeraldWebSocket", "CLibPQ"], path: "Tests/HeraldTestSupport", swiftSettings: swiftSettings),
        .testTarget(
            name: "HeraldWebSocketTests",
            dependencies: ["HeraldWebSocket", "HeraldTestSupport", .product(name: "PropertyBased", package: "swift-property-based")],
            path: "Tests/HeraldWebSocketTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldRulesTests",
            dependencies: ["HeraldRules", .product(name: "PropertyBased", package: "swift-property-based")],
            path: "Tests/HeraldRulesTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "HeraldDeflateTests", dependencies: ["HeraldDeflate", "HeraldWebSocket"], path: "Tests/HeraldDeflateTests", swiftSettings: swiftSettings),
        .testTarget(name: "HeraldTLSTests", dependencies: ["HeraldTLS", "COpenSSL"], path: "Tests/HeraldTLSTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "HeraldPushTests", dependencies: ["HeraldPush", "HeraldCrypto", "HeraldStoreProtocol", "HeraldProtocol"], path: "Tests/HeraldPushTests",
            swiftSettings: swiftSettings),
        .testTarget(name: "HeraldCryptoTests", dependencies: ["HeraldCrypto", "COpenSSL"], path: "Tests/HeraldCryptoTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "HeraldProtocolTests",
            dependencies: ["HeraldProtocol", "HeraldRules", .product(name: "PropertyBased", package: "swift-property-based")],
            path: "Tests/HeraldProtocolTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldStoreTests",
            dependencies: [
                "HeraldStore", "HeraldStorePostgres", "HeraldStoreProtocol", "HeraldTestSupport", "CLibPQ", .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/HeraldStoreTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "HeraldNetTests", dependencies: ["HeraldNet", "HeraldBytes", "HeraldTLS", "HeraldTestSupport"], path: "Tests/HeraldNetTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "HeraldServerTests",
            dependencies: [
                "HeraldServer", "HeraldSync", "HeraldStore", "HeraldBytes", "HeraldTestSupport", "HeraldWebSocket", "HeraldProtocol", "HeraldRules",
                "HeraldCrypto", "HeraldStorePostgres", "HeraldStoreProtocol", "HeraldNet", "HeraldDeflate", "HeraldTLS",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HeraldServerTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldClientTests",
            dependencies: ["HeraldTestSupport", "HeraldProtocol", "HeraldClient", "HeraldRules", "HeraldWebSocket"],
            path: "Tests/HeraldClientTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldKitTests",
            dependencies: ["HeraldKit", "HeraldRules", "HeraldTestSupport"],
            path: "Tests/HeraldKitTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "HeraldArchitectureTests", path: "Tests/HeraldArchitectureTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "HeraldEndToEndTests",
            dependencies: ["HeraldTestSupport"],
            path: "Tests/HeraldEndToEndTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeraldEndToEndMultiNodeTests",
            dependencies: ["HeraldTestSupport"],
            path: "Tests/HeraldEndToEndMultiNodeTests",
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
