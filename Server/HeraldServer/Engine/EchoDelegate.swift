/// `GET /echo`: sends every text and binary message back as it came (Autobahn-style echo endpoint).
final class EchoDelegate: WebSocketSessionDelegate, Sendable {
    var route: String { "/echo" }

    func sessionDidReceiveText(_ session: WebSocketSession, _ text: UnsafeRawBufferPointer) { session.sendText(text) }
    func sessionDidReceiveBinary(_ session: WebSocketSession, _ bytes: UnsafeRawBufferPointer) { session.sendBinary(bytes) }
    func sessionDidClose(_ session: WebSocketSession) {}
}
