import ArgumentParser
import Foundation

/// `chat`: U users in U/2 direct conversations, each user sending r messages per second into theirs.
struct ChatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "chat", abstract: "U users in U/2 DMs, each sending --per-user messages/s.")

    @OptionGroup var common: CommonOptions
    @Option(name: [.customShort("u"), .long], help: "Users (even); one device each.") var users = 1000
    @Option(help: "Messages per second per user.") var perUser: Double = 1
    @Option(help: "Text size in bytes.") var textBytes = 100
    @Flag(help: "Everyone reports typing (typing.start) before each message, as a person at a keyboard would (E1).") var typing = false

    func run() throws {
        guard users >= 2, users % 2 == 0, perUser > 0, textBytes >= 40 else { throw ValidationError("--users must be even and >= 2; --per-user > 0") }
        do {
            let prefix = common.userPrefix()
            let names = (0..<users).map { "\(prefix)u\($0)" }
            let fleet = try BenchScenario.connectFleet(common, deviceUsers: names, prefix: prefix)
            let dms = try BenchScenario.createConversations(fleet, common, what: "dm", requests: (0..<users / 2).map { pair in
                (2 * pair, { SyncRequest.dm(id: $0, user: names[2 * pair + 1]) })
            })
            let load = MessageLoad(
                fleet: fleet, plan: .init(conversations: dms.map { .init(id: $0, receivers: 2) },
                senders: (0..<users).map { .init(device: $0, conversation: $0 / 2) }, pace: .rate(Double(users) * perUser),
                textBytes: textBytes, prefix: prefix))
            load.typingBeforeEachSend = typing
            // Device i is on node i % nodes and a DM's users are devices 2p and 2p + 1: with two or more nodes, every DM
            // (and so every message) crosses nodes. Counted rather than assumed, so the JSON says so.
            let nodes = fleet.loop.ports.count
            let crossing = (0..<users / 2).filter { (2 * $0) % nodes != (2 * $0 + 1) % nodes }.count
            BenchScenario.run(load, on: fleet, common, scenario: "chat", fields: [
                "users": users, "per_user_rate": perUser, "size": textBytes, "typing": typing, "dms_crossing_nodes": crossing,
            ])
        } catch {
            BenchRun.fail("chat", error)
        }
    }
}
