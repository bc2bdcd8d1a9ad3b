import Foundation
import Glibc
@testable import HeraldPush
import Testing

/// A provider's answer is untrusted input: its headers are kept up to a cap, past which the transfer fails (and the
/// push is retried later) instead of the answer filling the worker's memory.
@Suite("Push transfer: a provider's response headers are bounded")
struct ResponseHeaderCapTests {
    @Test("An answer with 190 KiB of headers (under libcurl's own 300 KiB) fails the transfer; an ordinary answer is read with its headers")
    func headerFlood() throws {
        let flood = try OneShotHTTPServer(answer: Self.answer(headerCount: 3_000))
        let transfer = HTTPTransfer(caFile: nil, timeouts: TransferTimeouts(), policy: .publicOrLoopback)
        let flooded = transfer.perform(OutboundRequest(url: "http://127.0.0.1:\(flood.port)/push", headers: [], body: Array("{}".utf8)))
        guard case .failure = flooded else {
            Issue.record("190 KiB of headers were kept: \(flooded)")
            return
        }

        let plain = try OneShotHTTPServer(answer: Self.answer(headerCount: 3))
        let answered = transfer.perform(OutboundRequest(url: "http://127.0.0.1:\(plain.port)/push", headers: [], body: Array("{}".utf8)))
        let response = try answered.get()
        #expect(response.status == 201)
        #expect(response.headers["x-filler-2"] == String(repeating: "a", count: 48))
    }

    /// A 201 answer with `headerCount` headers of 64 bytes each.
    static func answer(headerCount: Int) -> [UInt8] {
        var text = "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n"
        for index in 0..<headerCount { text += "X-Filler-\(index): \(String(repeating: "a", count: 48))\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }
}

/// A loopback listener that answers its first connection's request with fixed bytes, then closes.
private final class OneShotHTTPServer: @unchecked Sendable {
    // @unchecked: the descriptor is set once, before the thread starts.
    let port: Int
    private let listening: Int32

    init(answer: [UInt8]) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard descriptor >= 0, bound == 0, listen(descriptor, 4) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        listening = descriptor
        let thread = Thread {
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { return }
            // Read the request's head before answering (it is small and arrives in one or two segments).
            var buffer = [UInt8](repeating: 0, count: 4_096)
            var received: [UInt8] = []
            while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
                let count = recv(connection, &buffer, buffer.count, 0)
                if count <= 0 { break }
                received += buffer[0..<count]
            }
            var sent = 0
            while sent < answer.count {
                let count = answer[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count <= 0 { break }
                sent += count
            }
            close(connection)
        }
        thread.start()
    }

    deinit { close(listening) }
}
