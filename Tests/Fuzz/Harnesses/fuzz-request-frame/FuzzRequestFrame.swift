import FuzzSupport
import HeraldProtocol

/// Random bytes into ``RequestFrame/decode(_:limits:)``, the server's decoder of every client text frame.
///
/// Properties: never traps or throws; a failure names a code a client can act on; a decoded request survives
/// `encode()` and decodes to itself (what the client library sends is what the server reads).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestFrame(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    // Small limits as well as the defaults, so every too_large branch is reachable from short inputs.
    let small = ProtocolLimits(maxTextBytes: 8, maxIdBytes: 4, maxTitleBytes: 4, maxGroupMembers: 2, maxAckIds: 2, maxHistoryPage: 3, maxURLBytes: 8)
    for limits in [ProtocolLimits.default, small] {
        switch RequestFrame.decode(input, limits: limits) {
        case .success(let frame):
            let encoded = frame.encode()
            fuzzRequire(!encoded.isEmpty, "a decoded request did not encode: \(frame)")
            switch RequestFrame.decode(encoded, limits: limits) {
            case .success(let again): fuzzRequire(again == frame, "round trip changed \(frame) into \(again)")
            case .failure(let failure): fuzzRequire(false, "re-encoded \(frame) fails to decode: \(failure)")
            }
        case .failure(let failure):
            let codes: [ErrorCode] = [.badJSON, .badRequest, .unknownType, .tooLarge]
            fuzzRequire(codes.contains(failure.error.code), "decode failed with code \(failure.error.code)")
            fuzzRequire(!failure.error.message.isEmpty, "failure without a message")
        }
    }
    return 0
}
