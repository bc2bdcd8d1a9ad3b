import CCurl
import Glibc
import Logging

/// Why a request got no HTTP answer (the provider is down, TLS failed, a timeout): always worth a retry later.
public struct TransferError: Error, Sendable, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var description: String { "transfer failed (curl \(code)): \(message)" }
}

/// How long a request may take, in its phases: a host that accepts connections and never answers (a tarpit) holds a
/// worker for the connect or stall limit, not for the whole request's.
struct TransferTimeouts: Sendable {
    /// The whole request.
    var requestMilliseconds = 15_000
    /// TCP connect and TLS handshake (libcurl's connect phase includes the handshake).
    var connectMilliseconds = 5_000
    /// No byte received for this long once connected: the request is given up (libcurl's low-speed limit, whole seconds).
    var stallMilliseconds = 5_000
}

/// What the last request came to, for the per-host bookkeeping (``PushHostGate``).
enum TransferSummary: Sendable, Equatable {
    case answered(status: Int)
    /// No HTTP answer: refused, timed out, TLS failed, or the address was not allowed.
    case noAnswer
}

/// One libcurl easy handle, kept for its connection: a worker sends its requests one after the other on it, so an
/// HTTP/2 connection (APNs) or a kept-alive HTTP/1.1 one is opened once, not per push. Not thread-safe: one per
/// worker thread.
///
/// Every connection's address is checked against the ``OutboundAddressPolicy`` in libcurl's open-socket callback, which
/// is handed the exact address libcurl is about to connect to, after its own resolution: the check and the connect see
/// the same address, so a DNS answer that changes between a check and the connect (rebinding) cannot slip through, and
/// no environment proxy is used (a proxy would connect on the server's behalf, past the check).
final class HTTPTransfer {
    private let handle: UnsafeMutableRawPointer?
    private let caFile: String?
    private let timeouts: TransferTimeouts
    private let addressGuard: AddressGuard
    /// Test-only `host:port:address` entries (curl's --resolve): the name is not looked up, but the address still goes
    /// through the open-socket check like any resolved one.
    private let resolve: UnsafeMutablePointer<curl_slist>?
    private let logger: Logger?
    private var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    /// What the last ``perform(_:)`` came to (nil before any).
    private(set) var lastSummary: TransferSummary?

    /// - Parameters:
    ///   - caFile: PEM certificates to trust instead of the system's (tests' stand-ins).
    ///   - timeouts: a provider that hangs is retried, not waited for.
    ///   - policy: which addresses connections may go to.
    ///   - resolve: `host:port:address` entries that replace name resolution (tests only).
    ///   - logger: where a refused address is reported.
    init(caFile: String?, timeouts: TransferTimeouts, policy: OutboundAddressPolicy, resolve: [String] = [], logger: Logger? = nil) {
        Self.initialiseOnce
        handle = curl_easy_init()
        self.caFile = caFile
        self.timeouts = timeouts
        addressGuard = AddressGuard(policy: policy)
        var list: UnsafeMutablePointer<curl_slist>?
        for entry in resolve { list = curl_slist_append(list, entry) }
        self.resolve = list
        self.logger = logger
    }

    deinit {
        if let handle { curl_easy_cleanup(handle) }
        curl_slist_free_all(resolve)
    }

    /// libcurl's global set-up is not thread-safe: done once, before any handle exists.
    private static let initialiseOnce: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Clears ``lastSummary`` before a push, so a push that made no request leaves none.
    func forgetSummary() { lastSummary = nil }

    /// Sends `request` and returns the provider's answer.
    func perform(_ request: OutboundRequest) -> Result<HTTPResponse, TransferError> {
        let result = send(request)
        switch result {
        case .success(let response): lastSummary = .answered(status: response.status)
        case .failure: lastSummary = .noAnswer
        }
        return result
    }

    private func send(_ request: OutboundRequest) -> Result<HTTPResponse, TransferError> {
        guard let handle else { return .failure(TransferError(code: -1, message: "libcurl could not make a handle")) }
        curl_easy_reset(handle)
        addressGuard.refused.removeAll()
        var headers: UnsafeMutablePointer<curl_slist>?
        for header in request.headers { headers = curl_slist_append(headers, "\(header.name): \(header.value)") }
        // A body over 1 KiB makes HTTP/1.1 libcurl wait for "100 Continue"; push bodies are small, so never.
        headers = curl_slist_append(headers, "Expect:")
        defer { curl_slist_free_all(headers) }
        let sink = ResponseSink()
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let code: CURLcode = request.body.withUnsafeBytes { body in
            errorBuffer.withUnsafeMutableBufferPointer { errors in
                errors[0] = 0
                _ = ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
                _ = ccurl_setopt_string(handle, CURLOPT_URL, request.url)
                _ = ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
                _ = ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
                _ = ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeouts.requestMilliseconds)
                _ = ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(timeouts.connectMilliseconds, timeouts.requestMilliseconds))
                // Less than 1 byte/s for the stall limit: a host that took the request and never answers is given up.
                _ = ccurl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
                _ = ccurl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(timeouts.stallMilliseconds / 1_000, 1))
                // No proxy, not even one from the environment (http_proxy, HTTPS_PROXY): it would connect past the check.
                _ = ccurl_setopt_string(handle, CURLOPT_PROXY, "")
                _ = ccurl_setopt_opensocket(handle) { context, purpose, address in
                    guard let context, let address else { return CURL_SOCKET_BAD }
                    return Unmanaged<AddressGuard>.fromOpaque(context).takeUnretainedValue().open(purpose: purpose, address: address)
                }
                _ = ccurl_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, Unmanaged.passUnretained(addressGuard).toOpaque())
                if let resolve { _ = ccurl_setopt_slist(handle, CURLOPT_RESOLVE, resolve) }
                // Only https, and http for loopback tests: never file://, gopher:// or another scheme from a target.
                _ = ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "https,http")
                _ = ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
                // HTTP/2 only where the provider requires it (APNs). A worker sends one request at a time on its one
                // connection, so HTTP/2 would multiplex nothing, and a server that answers before reading the whole
                // body ends the stream with RST_STREAM, which libcurl reports as a failed transfer (seen with nginx).
                _ = ccurl_setopt_long(handle, CURLOPT_HTTP_VERSION, request.requiresHTTP2 ? Int(CURL_HTTP_VERSION_2TLS) : Int(CURL_HTTP_VERSION_1_1))
                if let caFile { _ = ccurl_setopt_string(handle, CURLOPT_CAINFO, caFile) }
                _ = ccurl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers)
                if request.method != "GET" {
                    _ = ccurl_setopt_size(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
                    _ = ccurl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: body.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
                }
                _ = ccurl_setopt_callback(handle, CURLOPT_WRITEFUNCTION, { data, size, count, context in
                    let sink = Unmanaged<ResponseSink>.fromOpaque(context!).takeUnretainedValue()
                    let length = size * count
                    if let data { data.withMemoryRebound(to: UInt8.self, capacity: length) { sink.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) } }
                    // A provider's answer is small; one that is not is cut off (the transfer fails) instead of filling memory.
                    return sink.body.count > 1 << 20 ? 0 : length
                })
                _ = ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
                _ = ccurl_setopt_callback(handle, CURLOPT_HEADERFUNCTION, { data, size, count, context in
                    let sink = Unmanaged<ResponseSink>.fromOpaque(context!).takeUnretainedValue()
                    let length = size * count
                    if let data {
                        let line = data.withMemoryRebound(to: UInt8.self, capacity: length) { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) }
                        // Past the cap the transfer fails (a retry later) instead of the answer filling memory.
                        guard sink.header(line) else { return 0 }
                    }
                    return length
                })
                _ = ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
                return curl_easy_perform(handle)
            }
        }
        guard code == CURLE_OK else {
            if let refused = addressGuard.refused.first {
                let host = Self.host(of: request.url)
                // The host is the target's own choice and says who tried; the full URL (a subscription's secret) is not logged.
                logger?.warning(
                    "push connection refused: the host's address is not allowed",
                    metadata: ["host": "\(host)", "address": "\(refused.address)", "kind": "\(refused.reason)"])
                return .failure(TransferError(code: -3, message: "refused to connect to \(host): \(refused.address) is \(refused.reason), not an address pushes may connect to"))
            }
            let detail = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return .failure(TransferError(code: Int(code.rawValue), message: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail))
        }
        var status = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        if request.requiresHTTP2, version != Int(CURL_HTTP_VERSION_2_0) {
            return .failure(TransferError(code: -2, message: "the provider did not answer over HTTP/2"))
        }
        return .success(HTTPResponse(status: status, headers: sink.headers, body: sink.body))
    }
}

extension HTTPTransfer {
    /// The host of an http(s) URL, without user info or port (for log lines).
    static func host(of url: String) -> Substring {
        let rest = url.firstRange(of: "://").map { url[$0.upperBound...] } ?? Substring(url)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@").last ?? authority
        if hostAndPort.hasPrefix("[") { return hostAndPort.prefix { $0 != "]" }.dropFirst() }
        return hostAndPort.prefix { $0 != ":" }
    }
}

/// libcurl's open-socket callback: the socket is made only for an address the policy allows.
private final class AddressGuard {
    let policy: OutboundAddressPolicy
    /// Addresses refused during the current request, with the reason.
    var refused: [(address: NetworkAddress, reason: String)] = []

    init(policy: OutboundAddressPolicy) { self.policy = policy }

    func open(purpose: curlsocktype, address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        guard purpose == CURLSOCKTYPE_IPCXN else { return CURL_SOCKET_BAD }
        let family = address.pointee.family
        guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \.addr) else { return CURL_SOCKET_BAD }
        let socketAddress = UnsafeRawPointer(address) + offset
        let length = Int(address.pointee.addrlen)
        let parsed: NetworkAddress
        if family == AF_INET, length >= MemoryLayout<sockaddr_in>.size {
            let bytes = withUnsafeBytes(of: socketAddress.loadUnaligned(as: sockaddr_in.self).sin_addr) { Array($0) }
            parsed = .v4(bytes[0], bytes[1], bytes[2], bytes[3])
        } else if family == AF_INET6, length >= MemoryLayout<sockaddr_in6>.size {
            parsed = .v6(withUnsafeBytes(of: socketAddress.loadUnaligned(as: sockaddr_in6.self).sin6_addr) { Array($0) })
        } else {
            return CURL_SOCKET_BAD  // no other family is ever an HTTP peer (AF_UNIX is never asked for)
        }
        if let reason = policy.refusal(for: parsed) {
            refused.append((parsed, reason))
            return CURL_SOCKET_BAD
        }
        return socket(family, address.pointee.socktype, address.pointee.protocol)
    }
}

/// Where libcurl's callbacks put the answer.
private final class ResponseSink {
    var body: [UInt8] = []
    var headers: [String: String] = [:]
    /// Header bytes of this answer so far: a provider's headers are a few hundred bytes, a hostile one's unbounded.
    private var headerBytes = 0
    static let maxHeaderBytes = 64 << 10

    /// Keeps one header line; false once the answer's headers pass `maxHeaderBytes`.
    func header(_ line: String) -> Bool {
        // A new status line (after a 100 Continue, or a redirect we do not follow) starts the headers over.
        if line.hasPrefix("HTTP/") {
            headers.removeAll()
            headerBytes = 0
            return true
        }
        headerBytes += line.utf8.count
        guard headerBytes <= Self.maxHeaderBytes else { return false }
        guard let colon = line.firstIndex(of: ":") else { return true }
        headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...]).trimmingSpaces
        return true
    }
}
