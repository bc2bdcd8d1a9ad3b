import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// A node dies (SIGKILL: nothing flushed, no goodbye) under chat load, as a machine of a deployment does: three
    /// nodes on one PostgreSQL behind Debian's haproxy, real `herald --script` devices connected through it.
    @Suite("Node loss behind haproxy")
    struct NodeLoss {
        /// A device of the load: a user, its conversations, and what it sent (one entry per `send` command, in order).
        final class Chatter {
            let client: ClientProcess
            let user: String
            var conversations: [String] = []
            var sentInto: [String] = []
            init(_ client: ClientProcess, _ user: String) {
                self.client = client
                self.user = user
            }
        }

        /// Three nodes on a fresh database with Web Push (`pushGrace` s of P4 grace), and haproxy in front of them.
        static func cluster(pushGrace: Double) throws -> (Nodes, HAProxyFront) {
            let vapid = try Self.vapidKey()
            let nodes = try Nodes(count: 3, pushGrace: pushGrace, arguments: [
                "--vapid-key-file", vapid, "--vapid-subject", "mailto:ops@example.com", "--push-allow-http-loopback",
            ])
            return (nodes, try HAProxyFront(backends: nodes.nodes.map(\.port)))
        }

        @Test("R3, R4, U7: SIGKILL one of three nodes under chat load; its devices reconnect through haproxy and resume exactly once, every acknowledged message reaches every device once")
        func nodeKilledUnderLoad() throws {
            let (nodes, front) = try Self.cluster(pushGrace: 0)
            defer { nodes.stop() }
            defer { front.stop() }
            let victim = nodes.nodes[0]

            // Six devices through haproxy (round robin: two a node), in three DMs and one group of all six.
            let users = (1...6).map { "u\($0)" }
            var chatters: [Chatter] = []
            for user in users {
                let client = try ClientProcess.start(port: front.port, token: try nodes.token(user), name: user, toastDuration: 1)
                try client.waitConnected()
                chatters.append(Chatter(client, user))
            }
            for pair in stride(from: 0, to: 6, by: 2) {
                let c = try Self.conversation(chatters[pair].client.ok("dm \(users[pair + 1])"))
                chatters[pair].conversations.append(c)
                chatters[pair + 1].conversations.append(c)
            }
            let group = try Self.conversation(chatters[0].client.ok("group \"All six\" \(users.dropFirst().joined(separator: " "))"))
            for chatter in chatters {
                chatter.conversations.append(group)
                let known = chatter.conversations
                try chatter.client.waitState("\(chatter.user) knows its conversations", timeout: .seconds(20)) { state in
                    known.allSatisfy(state.conversationOrder.contains)
                }
            }

            let marks = chatters.map(\.client.mark)
            for round in 0..<60 {
                for chatter in chatters {
                    let into = round % 3 == 0 ? group : chatter.conversations[0]
                    chatter.client.send("send \(into) \(chatter.user) round \(round)")
                    chatter.sentInto.append(into)
                }
                if round == 20 { victim.kill() }
                // Pacing of the load (about 200 sends/s), not a wait for anything.
                usleep(30_000)
            }

            // Every send is answered, with its client message id (R4: the same for every retry). A send made while the
            // device was cut off is answered "queued" and resent after the reconnect; it is stored once its own
            // `message` event (which carries that client message id) names the stored message.
            var acked: [String: Set<String>] = [:]
            var ackedBy: [String: [String: Int]] = [:]
            for (chatter, mark) in zip(chatters, marks) {
                let answers = try chatter.client.wait("answers to all \(chatter.sentInto.count) sends", timeout: .seconds(60)) { lines in
                    let found = lines.dropFirst(mark).compactMap(OutputLine.init).filter(\.isAnswer)
                    return found.count >= chatter.sentInto.count ? Array(found.prefix(chatter.sentInto.count)) : nil
                }
                #expect(answers.allSatisfy { $0.type == "ok" }, "\(chatter.user): \(answers.filter { $0.type != "ok" }.map(\.raw))")
                let clientIDs = answers.compactMap { $0.string("clientMessageId") }
                #expect(clientIDs.count == answers.count && Set(clientIDs).count == clientIDs.count, "\(chatter.user): one client message id per send")
                let stored = try chatter.client.wait("its \(clientIDs.count) sends stored", timeout: .seconds(60)) { lines -> [String: String]? in
                    var byClientID: [String: String] = [:]
                    for line in lines.dropFirst(mark).compactMap(OutputLine.init) where line.type == "event" && line.event == "message" {
                        if let clientID = line.string("clientMessageId"), let id = line.string("message") { byClientID[clientID] = id }
                    }
                    return clientIDs.allSatisfy { byClientID[$0] != nil } ? byClientID : nil
                }
                for (answer, conversation) in zip(answers, chatter.sentInto) {
                    guard let clientID = answer.string("clientMessageId"), let id = stored[clientID] else { continue }
                    if let answered = answer.string("message") { #expect(answered == id, "\(chatter.user): \(clientID) acknowledged as \(answered), shown as \(id)") }
                    acked[conversation, default: []].insert(id)
                    ackedBy[conversation, default: [:]][chatter.user, default: 0] += 1
                }
            }

            // Which devices were on the dead node: they saw their connection drop, and came back through haproxy.
            let dropped = zip(chatters, marks).filter { !$0.0.client.events("disconnected", after: $0.1).isEmpty }
            #expect(!dropped.isEmpty, "round robin put devices on the killed node")
            for (chatter, mark) in dropped { try chatter.client.waitConnected(after: mark, timeout: .seconds(30)) }

            // U7 and R3 on every device: its unread counts are the others' acknowledged messages exactly (a repeat or a
            // loss changes them), and its message events name every acknowledged message of its conversations once,
            // with stream seqs that only go up.
            for (chatter, mark) in zip(chatters, marks) {
                let expected = chatter.conversations.map { c in (c, (ackedBy[c] ?? [:]).filter { $0.key != chatter.user }.values.reduce(0, +)) }
                try chatter.client.waitState("\(chatter.user) unread \(expected)", timeout: .seconds(60)) { state in
                    expected.allSatisfy { state.unread($0.0) == $0.1 }
                }
                let events = chatter.client.events("message", after: mark)
                let seqs = events.compactMap { $0.int("seq") }
                #expect(seqs.count == events.count, "\(chatter.user): every message event carries its seq")
                #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }, "\(chatter.user): seqs went back or repeated: \(seqs)")
                for c in chatter.conversations {
                    let ids = events.filter { $0.string("conversation") == c }.compactMap { $0.string("message") }
                    #expect(Set(ids).count == ids.count, "\(chatter.user) saw a message of \(c) twice")
                    #expect(Set(ids) == acked[c] ?? [], "\(chatter.user) in \(c): \(ids.count) delivered, \((acked[c] ?? []).count) acknowledged")
                }
            }

            #expect(!victim.isRunning)
        }

        @Test("P4 across nodes: the pushes a node had in their grace period when it was SIGKILLed are sent once by a live node")
        func duePushesOfKilledNode() throws {
            let (nodes, front) = try Self.cluster(pushGrace: 2)
            defer { nodes.stop() }
            defer { front.stop() }
            let victim = nodes.nodes[0]
            // grace's phone is locked (only Web Push reaches it); alice talks to it from the node that will die.
            let phone = try ClientProcess.start(port: front.port, token: try nodes.token("grace"), name: "grace-phone",
                                                arguments: ["--push", "webpush", "--device", "grace-phone"])
            try phone.waitEvent("push.registered", timeout: .seconds(20))
            try phone.ok("lock")
            try phone.waitEvent("disconnected")
            let alice = try ClientProcess.start(port: victim.port, token: try nodes.token("alice"), name: "alice")
            try alice.waitConnected()
            let toGrace = try Self.conversation(alice.ok("dm grace"))
            // Each message gets its own push: the first one, from the node while it lives, shows it.
            let first = try Self.message(alice.ok("send \(toGrace) before"))
            try phone.waitEvent("push", timeout: .seconds(30)) { $0.string("message") == first }
            let mark = phone.mark

            // Acknowledged by the node about to die; their pushes are due 2 s later, when it is gone.
            var due: [String] = []
            for i in 1...3 { due.append(try Self.message(alice.ok("send \(toGrace) due push \(i)"))) }
            victim.kill()

            // A pending push lives in its node's memory until its grace ends; the live node that takes the dead one over
            // schedules it again (each is waited for: how soon the takeover comes depends on the machine's load).
            for id in due { try phone.waitEvent("push", after: mark, timeout: .seconds(60)) { $0.string("message") == id } }
            // The control, sent through haproxy to a live node after the others were pushed, is pushed after any
            // repeat of them that was still coming.
            let survivor = try ClientProcess.start(port: front.port, token: try nodes.token("alice"), name: "alice-2")
            try survivor.waitConnected(timeout: .seconds(30))
            let control = try Self.message(survivor.ok("send \(toGrace) control"))
            try phone.waitEvent("push", after: mark, timeout: .seconds(30)) { $0.string("message") == control }
            let pushes = phone.events("push", after: mark).compactMap { $0.string("message") }
            for id in due { #expect(pushes.filter { $0 == id }.count == 1, "the due push of \(id) sent once: \(pushes)") }
            #expect(Set(pushes).count == pushes.count, "no push twice: \(pushes)")
        }

        static func conversation(_ answer: OutputLine) throws -> String {
            guard let id = answer.string("conversation") else { throw ProcessHarnessError("no conversation in \(answer.raw)") }
            return id
        }

        static func message(_ answer: OutputLine) throws -> String {
            guard let id = answer.string("message") else { throw ProcessHarnessError("no message in \(answer.raw)") }
            return id
        }

        /// A VAPID key (P-256, PKCS#8 PEM) made with the openssl CLI, as the locked-phone scenarios make theirs.
        static func vapidKey() throws -> String {
            let key = FileManager.default.temporaryDirectory.appendingPathComponent("vapid-\(UUID().uuidString).pem").path
            let made = try runToCompletion("/bin/sh", ["-c", "openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out '\(key)'"])
            guard made.status == 0 else { throw ProcessHarnessError("openssl could not make a VAPID key: \(made.standardError)") }
            return key
        }
    }
}
