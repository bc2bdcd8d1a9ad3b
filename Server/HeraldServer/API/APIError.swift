/// A refused API request: HTTP status, stable code and a message for people.
///
/// Codes: 400 `bad_json` (not JSON) / `bad_request` (a field is missing, of the wrong type or out of range),
/// 401 `unauthorized`, 403 `forbidden`, 404 `not_found`, 405 `method_not_allowed`, 409 `conflict`,
/// 413 `too_large`, 429 `rate_limited` / `quota_exceeded` (the user's daily storage quota), 431 `headers_too_large`, 500 `internal`, 503 `unavailable`.
struct APIError: Error, Equatable {
    var status: Int
    var code: String
    var message: String
    var headers: [String: String] = [:]

    init(_ status: Int, _ code: String, _ message: String, headers: [String: String] = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    var response: HTTPResponse {
        .error(status, code: code, message, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    static func badRequest(_ message: String) -> APIError { APIError(400, "bad_request", message) }
}
