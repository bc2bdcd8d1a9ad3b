import COpenSSL

/// This thread's OpenSSL error queue, read and cleared in one place for every user of OpenSSL (the crypto here and
/// HeraldTLS). Draining matters beyond the message: TLS on the same thread reads the queue (`SSL_get_error`), and a
/// stale entry left by a refused key would be reported as a TLS failure.
public enum OpenSSLErrorQueue {
    /// The queue's entries, rendered (`error:1E08010C:DECODER routines::unsupported`), oldest first; the queue is empty
    /// afterwards.
    public static func drain() -> [String] {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages
    }
}
