import CCurl

/// Why a request got no HTTP answer (the provider is down, TLS failed, a timeout): always worth a retry later.
public struct TransferError: Error, Sendable, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var description: String { "transfer failed (curl \(code)): \(message)" }
}

/// One libcurl easy handle, kept for its connection: a worker sends its requests one after the other on it, so an
/// HTTP/2 connection (APNs) or a kept-alive HTTP/1.1 one is opened once, not per push. Not thread-safe: one per
/// worker thread.
final class HTTPTransfer {
    private let handle: UnsafeMutableRawPointer?
    private let caFile: String?
    private let timeoutMilliseconds: Int
    private var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

    /// - Parameters:
    ///   - caFile: PEM certificates to trust instead of the system's (tests' stand-ins).
    ///   - timeoutMilliseconds: for a whole request; a provider that hangs is retried, not waited for.
    init(caFile: String?, timeoutMilliseconds: Int) {
        Self.initialiseOnce
        handle = curl_easy_init()
        self.caFile = caFile
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    deinit {
        if let handle { curl_easy_cleanup(handle) }
    }

    /// libcurl's global set-up is not thread-safe: done once, before any handle exists.
    private static let initialiseOnce: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Sends `request` and returns the provider's answer.
    func perform(_ request: OutboundRequest) -> Result<HTTPResponse, TransferError> {
        guard let handle else { return .failure(TransferError(code: -1, message: "libcurl could not make a handle")) }
        curl_easy_reset(handle)
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
                _ = ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
                _ = ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(timeoutMilliseconds, 10_000))
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
                        sink.header(line)
                    }
                    return length
                })
                _ = ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
                return curl_easy_perform(handle)
            }
        }
        guard code == CURLE_OK else {
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

/// Where libcurl's callbacks put the answer.
private final class ResponseSink {
    var body: [UInt8] = []
    var headers: [String: String] = [:]

    func header(_ line: String) {
        // A new status line (after a 100 Continue, or a redirect we do not follow) starts the headers over.
        if line.hasPrefix("HTTP/") {
            headers.removeAll()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...]).trimmingSpaces
    }
}
