import Foundation
import Glibc
import HeraldKit
import HeraldRules
import HeraldTestSupport
import Synchronization
import Testing

/// HeraldKit against a real `herald-server`: what an app sees through the library.
@Suite("HeraldKit sessions", .timeLimit(.minutes(2)))
struct SessionEndToEndTests {
    static func session(_ server: TestServer, _ user: String, store: (any PendingMessageStore)? = nil,
                        liveness: Duration? = .seconds(15)) throws -> HeraldSession {
        var configuration = HeraldConfiguration(server: server.url, token: try server.token(user))
        configuration.pendingMessageStore = store
        configuration.livenessInterval = liveness
        return try HeraldSession(configuration: configuration)
    }

    @Test("events arrive typed; scenes drive toasts and reads (S1-S3, U2, U6)")
    func typedEventsAndScenes() async throws {
        let server = try TestServer()
        let alice = EventRecorder(try Self.session(server, "alice"))
        let bob = EventRecorder(try Self.session(server, "bob"))
        try await alice.waitOnline()
        try await bob.waitOnline()
        let conversation = try await alice.session.directConversation(with: "bob")

        // Bob is on the list: Alice's message arrives as a message and a toast.
        let id = try alice.session.send("she said \"hi\\", to: conversation)
        let sent = try await alice.wait("own message") { $0.message?.clientMessageId == id }.message
        let arrived = try await bob.wait("message") { $0.message?.id == sent?.id }.message
        #expect(arrived?.text == "she said \"hi\\" && arrived?.sender == "alice" && arrived?.conversation == conversation)
        let toast = try await bob.wait("toast") { $0.toast != nil }.toast
        #expect(toast?.conversation == conversation && toast?.text == "she said \"hi\\" && toast?.url == "herald://conversation/\(conversation)")
        #expect(try await bob.session.conversations().first(where: { $0.id == conversation })?.unread == 1)

        // Opening the thread shows the message, which is then read (U2), and Alice gets the receipt (U6).
        var mark = bob.mark
        try await bob.session.show(.thread(conversation))
        try await bob.wait("read", after: mark) { if case .read(conversation, _, 0, 0) = $0 { true } else { false } }
        try await alice.wait("receipt") { if case .receipt(conversation, sent?.id ?? "", "bob") = $0 { true } else { false } }

        // In the thread, a new message is read at once and raises no toast (S2).
        mark = bob.mark
        let second = try alice.session.send("second", to: conversation)
        let secondId = try await alice.wait("own message") { $0.message?.clientMessageId == second }.message?.id
        try await bob.wait("read of the second", after: mark) {
            if case .read(conversation, let ids, 0, _) = $0 { ids.contains(secondId ?? "") } else { false }
        }
        #expect(!bob.events.dropFirst(mark).contains { $0.toast != nil }, "no toast for the thread on screen")

        // In the background nothing is read and no toast shows; the unread count goes up.
        try await bob.session.show(.background)
        mark = bob.mark
        let third = try alice.session.send("third", to: conversation)
        let thirdId = try await alice.wait("own message") { $0.message?.clientMessageId == third }.message?.id
        try await bob.wait("third", after: mark) { $0.message?.id == thirdId }
        #expect(try await bob.session.conversations().first(where: { $0.id == conversation })?.unread == 1)
        #expect(!bob.events.dropFirst(mark).contains { $0.toast != nil })

        await alice.session.disconnect()
        await bob.session.disconnect()
        try await alice.wait("stopped") { $0 == .connection(.stopped(.disconnected)) }
    }

    @Test("deep links route typed (D1, D2); a bad link is refused; a muted conversation raises no toast unless it mentions me (N1, N2)")
    func linksAndMutes() async throws {
        let server = try TestServer()
        let alice = EventRecorder(try Self.session(server, "alice"))
        let bob = EventRecorder(try Self.session(server, "bob"))
        try await alice.waitOnline()
        try await bob.waitOnline()
        let conversation = try await alice.session.directConversation(with: "bob")
        let group = try await alice.session.createGroup(title: "Team", members: ["bob"])

        try await bob.session.open(link: "herald://conversation/\(conversation)")
        try await bob.wait("route") { $0 == .route(url: "herald://conversation/\(conversation)", scene: "thread", conversation: conversation, error: nil) }
        do {
            try await bob.session.open(link: "not a link")
            Issue.record("a badly formed link was accepted")
        } catch {
            if case .refused(let code, _) = error { #expect(code == "invalid_link") } else { Issue.record("\(error)") }
        }
        try await bob.session.show(.list)

        try await bob.session.mute(group)
        var mark = bob.mark
        let quiet = try alice.session.send("lunch?", to: group)
        let quietId = try await alice.wait("own") { $0.message?.clientMessageId == quiet }.message?.id
        try await bob.wait("muted message", after: mark) { $0.message?.id == quietId }
        mark = bob.mark
        let mention = try alice.session.send("@bob lunch?", to: group)
        let mentionId = try await alice.wait("own") { $0.message?.clientMessageId == mention }.message?.id
        let toast = try await bob.wait("mention toast", after: mark) { $0.toast != nil }.toast
        #expect(toast?.mentionsMe == true && toast?.priority == .elevated && toast?.text == "@bob lunch?")
        #expect(bob.events.contains { $0.message?.id == mentionId && $0.message?.mentionsMe == true })
        #expect(!bob.events.contains { $0.toast?.text == "lunch?" }, "the muted message raised no toast")
    }

    @Test("a message sent offline is kept on disk, survives a restart of the app, and is stored once (R4)")
    func pendingMessagesSurviveRestart() async throws {
        let server = try TestServer()
        let directory = server.directory.appendingPathComponent("alice-app").path
        let store = PendingMessageFile(directory: directory)
        let bob = EventRecorder(try Self.session(server, "bob"))
        var alice = EventRecorder(try Self.session(server, "alice", store: store))
        try await alice.waitOnline()
        try await bob.waitOnline()
        let conversation = try await alice.session.directConversation(with: "bob")

        // The server goes away; Alice writes anyway and closes the app.
        let mark = alice.mark
        #expect(server.stop() == 0)
        try await alice.wait("offline", after: mark) { if case .connection(.offline) = $0 { true } else { false } }
        let id = try alice.session.send("written offline", to: conversation)
        #expect(try store.load().map(\.clientMessageId) == [id], "on disk before it went out")
        await alice.session.disconnect()

        // The server is back; the app starts again from the same store: the message goes out with its id.
        try server.restart()
        alice = EventRecorder(try Self.session(server, "alice", store: store))
        #expect(alice.session.pendingMessages.map(\.clientMessageId) == [id])
        let stored = try await alice.wait("the pending message stored") { $0.message?.clientMessageId == id }.message
        let messageId = try #require(stored?.id)
        try await bob.wait("message at bob", timeout: .seconds(60)) { $0.message?.id == messageId }
        // The server's answer (which may come after the stream's event) settles it.
        try await alice.wait("stored") { $0 == .stored(clientMessageId: id, message: messageId) }
        #expect(try store.load().isEmpty, "settled on disk")

        // A crash after the server stored it but before the app saw it: the same pending message again is stored once.
        try store.save([PendingMessage(conversation: conversation, clientMessageId: id, text: "written offline", imageURL: nil)])
        let again = EventRecorder(try Self.session(server, "alice", store: store))
        let repeated = try await again.wait("answer to the repeat") { if case .stored(id, _) = $0 { true } else { false } }
        #expect(repeated == .stored(clientMessageId: id, message: messageId), "the server answered with the message it stored")
        #expect(try store.load().isEmpty)
        let bobMark = bob.mark
        let probe = try again.session.send("after the repeat", to: conversation)
        let probeId = try await again.wait("probe") { $0.message?.clientMessageId == probe }.message?.id
        try await bob.wait("probe at bob", after: bobMark) { $0.message?.id == probeId }
        #expect(bob.messages(withId: messageId).count == 1, "exactly once at the receiver")
        #expect(try await bob.session.conversations().first(where: { $0.id == conversation })?.unread == 2)
    }

    @Test("liveness: a SIGSTOPped server shows offline within two intervals; after SIGCONT the stream resumes exactly once (R3)")
    func livenessAndResume() async throws {
        let server = try TestServer()
        let interval = Duration.seconds(1)
        let alice = EventRecorder(try Self.session(server, "alice", liveness: interval))
        let bob = EventRecorder(try Self.session(server, "bob"))
        try await alice.waitOnline()
        try await bob.waitOnline()
        let conversation = try await bob.session.directConversation(with: "alice")
        let before = try bob.session.send("before the freeze", to: conversation)
        let beforeId = try #require(try await bob.wait("own") { $0.message?.clientMessageId == before }.message?.id)
        try await alice.wait("first message") { $0.message?.id == beforeId }

        var mark = alice.mark
        // Watched from a thread of its own: the tests' tasks share a pool that other suites' blocking waits may hold.
        let offlineAt = OfflineWatch(alice.session)
        server.childSignal(SIGSTOP)
        let frozeAt = ContinuousClock.now
        var resumed = false
        defer { if !resumed { server.childSignal(SIGCONT) } }
        try await alice.wait("offline", after: mark, timeout: .seconds(60)) { if case .connection(.offline) = $0 { true } else { false } }
        // The watcher looks every 2 ms: the event may come first.
        let noticed = ContinuousClock.now + .seconds(5)
        while offlineAt.instant == nil, ContinuousClock.now < noticed { try await Task.sleep(for: .milliseconds(5)) }
        let detected = try #require(offlineAt.instant) - frozeAt
        #expect(detected <= interval * 2 + .seconds(1), "offline after \(detected), within two intervals")
        // Bob writes while the server is frozen: his frame waits in the socket.
        let during = try bob.session.send("during the freeze", to: conversation)

        mark = alice.mark
        server.childSignal(SIGCONT)
        resumed = true
        try await alice.waitOnline(after: mark, timeout: .seconds(60))
        let duringId = try #require(try await bob.wait("own", timeout: .seconds(60)) { $0.message?.clientMessageId == during }.message?.id)
        try await alice.wait("message sent during the freeze") { $0.message?.id == duringId }
        let probe = try bob.session.send("after", to: conversation)
        let probeId = try #require(try await bob.wait("own") { $0.message?.clientMessageId == probe }.message?.id)
        try await alice.wait("probe") { $0.message?.id == probeId }
        #expect(alice.messages(withId: beforeId).count == 1, "not repeated by the resume")
        #expect(alice.messages(withId: duringId).count == 1, "exactly once")
    }
}

/// When a session first showed offline, read every few milliseconds by a thread of its own.
final class OfflineWatch: Sendable {
    private let box = InstantBox()

    init(_ session: HeraldSession) {
        let seen = box
        Thread.detachNewThread {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if case .offline = session.connectionState {
                    seen.value.withLock { $0 = ContinuousClock.now }
                    return
                }
                usleep(2_000)
            }
        }
    }

    var instant: ContinuousClock.Instant? { box.value.withLock { $0 } }
}

final class InstantBox: Sendable {
    let value = Mutex<ContinuousClock.Instant?>(nil)
}

extension TestServer {
    /// Sends `signal` to the server process (SIGSTOP freezes it without closing a socket).
    func childSignal(_ signal: Int32) { Glibc.kill(pid, signal) }
}
