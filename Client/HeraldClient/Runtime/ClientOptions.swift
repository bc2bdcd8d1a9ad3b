import Foundation
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
        guard parts.count == 3, let payload = base64URLDecode(parts[1]) else { return nil }
        let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
        return object?["sub"] as? String
    }

    static func base64URLDecode(_ text: Substring) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(byte - 65)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(byte - 97 + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(byte - 48 + 52)
            case UInt8(ascii: "-"), UInt8(ascii: "+"): values.append(62)
            case UInt8(ascii: "_"), UInt8(ascii: "/"): values.append(63)
            case UInt8(ascii: "="): continue
            default: return nil
            }
        }
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for value in values {
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
    }
}
