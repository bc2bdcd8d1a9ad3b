import FuzzSupport
import HeraldWebSocket

/// Random bytes into a server-role ``WebSocketStateMachine`` (and so ``FrameParser``), fed whole and in chunks.
///
/// Input layout: byte 0 picks the limits and the largest chunk, bytes 1-8 seed the chunking, the rest is what the
/// client sent. Properties: never traps; the chunked run reports exactly what the whole run does and writes the
/// same bytes; and ``ConnectionRun/checkInvariants()``.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(fuzzInput(data, size))
    let config = reader.byte()
    let seed = reader.uint64()
    let wire = reader.rest()
    let limits = fuzzLimits(config)
    let maxChunk = [1, 3, 16, 1 << 16][Int(config >> 2) & 3]

    var whole = ConnectionRun(WebSocketStateMachine(role: .server, limits: limits))
    whole.feed(wire[...])
    whole.checkInvariants()

    var chunked = ConnectionRun(WebSocketStateMachine(role: .server, limits: limits))
    chunked.feed(wire, chunks: chunkRanges(count: wire.count, seed: seed, maxChunk: maxChunk))
    chunked.checkInvariants()

    fuzzRequire(whole.events == chunked.events, "chunking changed the events: \(whole.events) vs \(chunked.events)")
    fuzzRequire(whole.output == chunked.output, "chunking changed the output")
    return 0
}
