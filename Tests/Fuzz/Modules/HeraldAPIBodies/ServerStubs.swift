// Not a symlink: the server type the symlinked API files name but whose real definition would pull in the rest of
// the server (API/HTTP/HTTPResponse.swift imports HeraldWebSocket and the API's response types). APIRequestBodies.swift,
// JSONValue+RequestBody.swift and APIError.swift are compiled exactly as in the server; `BackendOperation` comes from the
// module `HeraldSync` (Modules/HeraldSync, a symlink to the real Server/HeraldSync/BackendOperation.swift alone).

/// Only what APIError.swift's `response` needs to compile; the harness never builds a response.
struct HTTPResponse {
    static func error(_ status: Int, code: String, _ message: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse()
    }
}
