import Foundation
import HeraldCrypto
import HeraldProtocol
import HeraldRules
import HeraldWebSocket

/// Everything `herald` is started with, after flag parsing.
public struct ClientOptions: Sendable {
    public var server: ServerAddress
    public var token: String
    /// Script mode (JSON lines) or the interactive terminal.
    public var interactive: Bool
    public var viewportSize: Int
    public var toastDuration: Milliseconds
    public var openURL: String?
    /// `wss://` only: trust exactly the CAs in this PEM file instead of the system's store.
    public var caFile: String?
    /// `wss://` only: accept any server certificate (tests; anyone on the path could read the traffic).
    public var insecure: Bool
    /// Offer permessage-deflate (RFC 7692) in the handshake; `--no-compression` turns it off.
    public var compression: Bool
    /// The device's name on the server (`?device=`): pushes and sign-outs name devices, so a device reachable while
    /// locked needs one that lasts.
    public var deviceName: String?
    /// `--push webpush`: be a browser with a Web Push subscription, whose own endpoint listens on this loopback port
    /// (0: any), so the server can alert it while `lock`ed. nil: no push subscription.
    public var webPushPort: Int?
    /// Liveness: the client pings a connection it has read nothing on for this long, and calls it lost when nothing
    /// answers, so a frozen server shows offline within two intervals (the server pings too, and anything read counts).
    /// nil: no pings (the connection is lost only when the socket says so).
    public var livenessInterval: Milliseconds? = .seconds(15)
    /// The client runs inside an app (HeraldKit), not as the `herald` process: it keeps trying a server it cannot
    /// reach instead of exiting, and leaves the process's signals and descriptors alone.
    public var embedded = false
    /// A push token (APNs, FCM, Web Push) the client registers after its first sync, so the server can alert the device
    /// while it has no connection; `--push webpush` makes its own instead.
    public var pushRegistration: PushRegistration?
    /// The interactive terminal draws in colour (`--no-color` and a non-empty `NO_COLOR` turn it off, no-color.org).
    public var colour = true
    /// The interactive terminal rings the terminal bell on a mention or a direct message out of sight (`--terminal-bell`).
    public var terminalBell = false
    /// The byte stream an embedding app supplies for each connection (its own sockets and TLS); nil: our own TCP
    /// socket, with TLS for `wss://`.
    package var byteStream: ClientByteStreamFactory?

    public init(server: ServerAddress, token: String, interactive: Bool, viewportSize: Int, toastDuration: Milliseconds,
                openURL: String?, caFile: String?, insecure: Bool, compression: Bool = true, deviceName: String? = nil, webPushPort: Int? = nil) {
        self.server = server
        self.token = token
        self.interactive = interactive
        self.viewportSize = viewportSize
        self.toastDuration = toastDuration
        self.openURL = openURL
        self.caFile = caFile
        self.insecure = insecure
        self.compression = compression
        self.deviceName = deviceName
        self.webPushPort = webPushPort
    }
}

extension ClientOptions {
    /// The WebSocket deadlines for ``livenessInterval``: a ping after an interval of silence, then three quarters of
    /// one for any answer and a quarter for the close handshake a frozen peer never finishes: offline within two.
    var keepAlive: WebSocketKeepAlive {
        guard let interval = livenessInterval?.value, interval > 0 else { return .off }
        return WebSocketKeepAlive(pingIntervalMs: interval, pongTimeoutMs: interval * 3 / 4, closeTimeoutMs: interval / 4)
    }
}

/// The process exit codes of client-script.md.
public enum ClientExitCode: Int32, Sendable {
    /// `quit` or end of input.
    case success = 0
    /// Bad flags.
    case badFlags = 2
    /// The server refused the token (HTTP 401 on the upgrade).
    case unauthorized = 3
    /// The server could not be reached at start (also: its TLS certificate was not trusted).
    case unreachable = 4
}

/// Reads the user id (`sub`) out of a token's payload without checking the signature (the server does that).
public enum TokenSubject {
    public static func user(in token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        // Base64url as JWTs write it; a token spelt in standard base64 (with padding) reads the same.
        let payloadText = parts.count == 3 ? String(parts[1]).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "") : ""
        guard let payload = Base64URL.decode(payloadText) else { return nil }
        let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
        return object?["sub"] as? String
    }
}
