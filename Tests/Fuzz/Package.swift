// swift-tools-version: 6.2
// libFuzzer harnesses for Herald's parsers (they face the network: no input may trap). A separate package so the root `swift build` / `swift test`
// never see it. The modules under test are compiled from the root's own source folders through the symlinks in
// `Modules/` (no product had to be added to the root Package.swift), so every module here is built with the
// fuzzer's coverage instrumentation. Build and run with `Tests/Fuzz/run.sh`, which passes `-sanitize=fuzzer`
// (each harness's main.swift hands its `LLVMFuzzerTestOneInput` to libFuzzer's
// `LLVMFuzzerRunDriver`, because SwiftPM gives every executable its own `main`) and AddressSanitizer.
import PackageDescription

/// The same settings as the root package, so the modules compile exactly as they do there.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// One libFuzzer harness: an executable whose only entry point is `LLVMFuzzerTestOneInput`.
func harness(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + dependencies,
        path: "Harnesses/\(name)",
        swiftSettings: swiftSettings
    )
}

let package = Package(
    name: "HeraldFuzz",
    products: [],
    targets: [
        // MARK: - Modules under test (symlinks into /Shared)
        .systemLibrary(name: "CZlib", path: "Modules/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "HeraldBytes", path: "Modules/HeraldBytes", swiftSettings: swiftSettings),
        .target(name: "HeraldWebSocket", dependencies: ["HeraldBytes"], path: "Modules/HeraldWebSocket", swiftSettings: swiftSettings),
        .target(name: "HeraldDeflate", dependencies: ["CZlib", "HeraldBytes", "HeraldWebSocket"], path: "Modules/HeraldDeflate",
                swiftSettings: swiftSettings),
        .target(name: "HeraldRules", path: "Modules/HeraldRules", swiftSettings: swiftSettings),
        .target(name: "HeraldProtocol", dependencies: ["HeraldRules"], path: "Modules/HeraldProtocol", exclude: ["PROTOCOL.md"], swiftSettings: swiftSettings),
        .systemLibrary(name: "COpenSSL", path: "Modules/COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .target(name: "HeraldCrypto", dependencies: ["COpenSSL", "HeraldBytes"], path: "Modules/HeraldCrypto", swiftSettings: swiftSettings),

        // MARK: - Server entry points (symlinks to single files in /Server, not the whole HeraldServer module)
        // HeraldServer depends on the store (SQLite, PostgreSQL), the network layer and everything else; fuzzing the
        // token verifier or the API body parser must not build and instrument all of that. So these modules are
        // directories of symlinks to just the files under test, which need nothing but HeraldProtocol and OpenSSL:
        // - HeraldAuth: Auth/JSONWebToken.swift and SigningKeys.swift (+ the COpenSSL system library, a symlink to
        //   /Shared/COpenSSL like CZlib, and HeraldCrypto for HMAC, base64url and the constant-time comparison,
        //   listed above with the shared modules).
        //   SigningSecret, TokenIssuer etc. need the store and stay out.
        // - HeraldAPIBodies: API/APIRequestBodies.swift, JSONValue+RequestBody.swift, APIError.swift, plus ServerStubs.swift (a
        //   real file) with the HTTP type they name, whose definition would drag in the HTTP layer.
        // - HeraldSync: a symlink to just Server/HeraldSync/BackendOperation.swift, the cases the bodies build (the rest
        //   of the real module needs the store).
        // Their types are internal in the server, so HeraldAuth and HeraldAPIBodies are built with -enable-testing
        // for `@testable import`.
        .target(name: "HeraldAuth", dependencies: ["COpenSSL", "HeraldCrypto", "HeraldProtocol"], path: "Modules/HeraldAuth",
                swiftSettings: swiftSettings + [.unsafeFlags(["-enable-testing"])]),
        .target(name: "HeraldSync", dependencies: ["HeraldProtocol"], path: "Modules/HeraldSync", swiftSettings: swiftSettings),
        .target(name: "HeraldAPIBodies", dependencies: ["HeraldProtocol", "HeraldSync"], path: "Modules/HeraldAPIBodies",
                swiftSettings: swiftSettings + [.unsafeFlags(["-enable-testing"])]),

        // MARK: - Harness helpers
        .target(name: "CLibFuzzer", path: "CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer", "HeraldWebSocket"], path: "Support", swiftSettings: swiftSettings),

        // MARK: - Harnesses (one libFuzzer target each)
        harness("fuzz-websocket-bytes", ["HeraldWebSocket"]),
        harness("fuzz-websocket-frames", ["HeraldWebSocket", "HeraldDeflate"]),
        harness("fuzz-handshake", ["HeraldWebSocket", "HeraldDeflate"]),
        harness("fuzz-inflate", ["HeraldWebSocket", "HeraldDeflate"]),
        harness("fuzz-request-frame", ["HeraldProtocol"]),
        harness("fuzz-server-frame", ["HeraldProtocol"]),
        harness("fuzz-identifiers", ["HeraldProtocol"]),
        harness("fuzz-token", ["HeraldAuth", "HeraldProtocol", "COpenSSL"]),
        harness("fuzz-api-bodies", ["HeraldAPIBodies", "HeraldProtocol", "HeraldSync"]),
    ],
    swiftLanguageModes: [.v6]
)
