import Foundation
import FuzzSupport
import HeraldProtocol

/// Random bytes into ``ServerFrame/decode(_:)``, the client's decoder of every server text frame.
///
/// Properties: never traps; a failure is bad_json or unknown_type; a decoded frame re-encodes (as the server
/// would send it) and decodes to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerFrame(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    switch ServerFrame.decode(input) {
    case .success(let frame):
        let encoded: Data?
        switch frame {
        case .response(let response): encoded = try? JSONEncoder().encode(response)
        case .event(let event): encoded = try? JSONEncoder().encode(event)
        }
        guard let encoded else {
            // Only a non-finite number could refuse to encode, and the decoder never produces one.
            fuzzRequire(false, "decoded frame does not encode: \(frame)")
            return 0
        }
        switch ServerFrame.decode(Array(encoded)) {
        case .success(let again): fuzzRequire(again == frame, "round trip changed \(frame) into \(again)")
        case .failure(let error): fuzzRequire(false, "re-encoded \(frame) fails to decode: \(error)")
        }
    case .failure(let error):
        fuzzRequire(error.code == .badJSON || error.code == .unknownType, "decode failed with code \(error.code)")
    }
    return 0
}
