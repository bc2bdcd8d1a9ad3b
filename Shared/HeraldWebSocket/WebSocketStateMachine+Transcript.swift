extension WebSocketStateMachine {
    /// Feeds received bytes like ``receive(_:now:)``, and replays its actions as a transcript: bytes to write are
    /// appended to `output`, and `onEvent` is called for each event, in order. Copies every payload; not for a
    /// transport's hot path.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, now: Int64 = 0, output: inout [UInt8], onEvent: (WebSocketEvent) -> Void) {
        receive(bytes, now: now)
        for action in actions {
            switch action {
            case .deliver(let opcode, let range):
                onEvent(opcode == .text ? .text(Array(received[range])) : .binary(Array(received[range])))
            case .write(let range):
                output.append(contentsOf: outgoing[range])
            case .receivedPing(let range):
                onEvent(.ping(Array(received[range])))
            case .receivedPong(let range):
                onEvent(.pong(Array(received[range])))
            case .peerClosed(let code, let reason):
                onEvent(.closed(code: code, reason: String(decoding: received[reason], as: UTF8.self)))
            case .failed(let error):
                onEvent(.failed(error))
            case .closeStarted, .closeTransport, .setTimer:
                break
            }
        }
    }

    /// Feeds received bytes from an array; see ``receive(_:now:output:onEvent:)``.
    public mutating func receive(_ bytes: [UInt8], now: Int64 = 0, output: inout [UInt8], onEvent: (WebSocketEvent) -> Void) {
        bytes.withUnsafeBytes { receive($0, now: now, output: &output, onEvent: onEvent) }
    }
}
