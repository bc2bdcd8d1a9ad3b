import HeraldTLS

/// The TLS side of the read and write paths. All loop-confined.
extension EventLoop {
    /// Most plaintext one TLS connection gets per loop pass: one maximal TLS record. A 64 KiB read holds about four
    /// records; the rest is decrypted on later passes (the pending-read list), interleaved with other connections.
    static let tlsPlaintextSlice = 16 << 10

    /// Decrypts `ciphertext` (empty: only drain what OpenSSL already holds), queues whatever the engine must send
    /// (handshake, alerts), and hands the plaintext to the handler. A TLS failure closes the connection after its
    /// alert is flushed; the peer's close_notify is answered and the connection closes like on EOF.
    func receiveTLS(_ ciphertext: UnsafeRawBufferPointer, on connection: Connection, _ tls: TLSTransport) {
        // Swapped out, not borrowed: the handler may write (and so encrypt) while it reads the plaintext.
        var plaintext: [UInt8] = []
        swap(&plaintext, &tlsPlaintext)
        defer {
            plaintext.removeAll(keepingCapacity: plaintext.capacity <= 4 * readBufferSize)
            swap(&plaintext, &tlsPlaintext)
        }
        tlsCiphertext.removeAll(keepingCapacity: true)
        var failed = false
        do {
            try tls.engine.receive(ciphertext, plaintext: &plaintext, output: &tlsCiphertext, maxPlaintext: Self.tlsPlaintextSlice)
        } catch {
            // Garbage, a failed handshake or a bad record: nothing this connection sends can be trusted any more.
            failed = true
        }
        queueCiphertext(for: connection)
        if !plaintext.isEmpty, connection.state == .open {
            plaintext.withUnsafeBytes { connection.handler?.connectionDidRead(connection, $0) }
        }
        if failed || tls.engine.hasReceivedCloseNotify {
            connection.close(afterFlush: true)
        } else if tls.engine.hasPendingPlaintext {
            schedulePendingRead(connection, tls)
        }
    }

    /// Encrypts application bytes into the connection's write queue (one copy, unavoidable: every TLS connection
    /// has its own keys, so a shared broadcast frame is encrypted per connection).
    func encrypt(_ plaintext: UnsafeRawBufferPointer, on connection: Connection, _ tls: TLSTransport) {
        tlsCiphertext.removeAll(keepingCapacity: true)
        do {
            try tls.engine.write(plaintext, into: &tlsCiphertext)
        } catch {
            scheduleClose(connection)
            return
        }
        queueCiphertext(for: connection)
    }

    /// Queues close_notify (RFC 8446 §6.1) ahead of a graceful close. Nothing to say before the handshake is done.
    func sendCloseNotify(on connection: Connection, _ tls: TLSTransport) {
        guard tls.engine.isHandshakeComplete, !tls.engine.hasSentCloseNotify else { return }
        tlsCiphertext.removeAll(keepingCapacity: true)
        tls.engine.close(into: &tlsCiphertext)
        queueCiphertext(for: connection)
    }

    private func queueCiphertext(for connection: Connection) {
        guard !tlsCiphertext.isEmpty else { return }
        if connection.isOpenOrDraining {
            tlsCiphertext.withUnsafeBytes { connection.output.append($0) }
            scheduleWrite(connection)
        }
        // One 1 MiB message must not pin 1 MiB of scratch per loop afterwards.
        if tlsCiphertext.capacity > 4 * readBufferSize { tlsCiphertext = [] }
    }

    private func schedulePendingRead(_ connection: Connection, _ tls: TLSTransport) {
        guard !tls.isPendingRead else { return }
        tls.isPendingRead = true
        pendingReads.append(connection)
    }

    /// Runs before the loop sleeps: decrypts what OpenSSL still holds for each connection on the pending-read
    /// list, one slice each; connections with still more go back on the list for the next pass.
    func drainPendingReads() {
        takeEach(from: \.pendingReads) { connection in
            guard let tls = connection.tls else { return }
            tls.isPendingRead = false
            guard connection.state == .open, connection.wantsRead else { return }
            receiveTLS(UnsafeRawBufferPointer(start: nil, count: 0), on: connection, tls)
        }
    }
}
