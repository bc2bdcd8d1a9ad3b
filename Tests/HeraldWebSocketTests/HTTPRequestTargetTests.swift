import HeraldWebSocket
import Testing

/// RFC 9112 §3.2 request targets, read by bytes into a path and a query (RFC 3986 §3.4, form encoding).
@Suite("HTTP request targets: path and query")
struct HTTPRequestTargetTests {
    func split(_ target: String) -> (path: String, query: [String: String]) {
        let head = HTTPRequestHead(method: "GET", target: target, headers: ["Host": "h"])
        return (head.path, head.query)
    }

    @Test("RFC 3986 §3.4: pairs split at & and the first =, percent-decoded, + as space; the first of a repeated name wins")
    func query() {
        let (path, query) = split("/sync?token=a%20b&device=p+1&device=x&flag&=v&%zz=1&k=a=b&&")
        #expect(path == "/sync")
        #expect(query == ["token": "a b", "device": "p 1", "flag": "", "": "v", "%zz": "1", "k": "a=b"])
        #expect(split("/p?%E2%9C%93=%41").query == ["✓": "A"])
        #expect(split("/p?a=%4&b=%").query == ["a": "%4", "b": "%"], "a malformed escape is kept as it came")
        #expect(split("/p?a=%FF").query == ["a": "\u{FFFD}"], "invalid UTF-8 is repaired")
    }

    @Test("RFC 9112 §3.2.2: an absolute-form target loses its scheme and authority; a fragment is dropped")
    func forms() {
        #expect(split("http://host").path == "/")
        #expect(split("ws://host:8080/sync?x=1").path == "/sync")
        #expect(split("ws://host:8080/sync?x=1").query == ["x": "1"])
        #expect(split("https://h/a/b").path == "/a/b")
        #expect(split("/a#b?c").path == "/a")
        #expect(split("/a#b?c").query.isEmpty)
        #expect(split("/a?b=1#c").query == ["b": "1"])
        #expect(split("*").path == "*")
        #expect(split("/").query.isEmpty)
    }
}
