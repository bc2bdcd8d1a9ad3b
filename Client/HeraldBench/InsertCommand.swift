import ArgumentParser
import Foundation

/// `insert`: acknowledged sends per second. C users each send into a DM with a connected partner, with many
/// sends in flight; each send is committed (R4) before its response and delivered to both participants.
struct InsertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "insert", abstract: "Acknowledged sends/s with --inflight sends outstanding.")

    @OptionGroup var common: CommonOptions
    @Option(name: [.customShort("c"), .long], help: "Sending users (each has a connected partner).") var connections = 16
    @Option(help: "Sends in flight in total.") var inflight = 256
    @Option(help: "Text size in bytes.") var textBytes = 100
    @Flag(help: ArgumentHelp(
        "Every other DM is sent into by its second user instead of its first.",
        discussion: "Users connect round robin over each --server, and a DM's users are consecutive connections: without this flag every sender is an even connection, so with two --server every send goes to the first node."))
    var sendersOnEveryNode = false

    func run() throws {
        guard connections >= 1, inflight >= 1, textBytes >= 40 else { throw ValidationError("bad --connections/--inflight/--text-bytes") }
        do {
            let prefix = common.userPrefix()
            let names = (0..<connections * 2).map { "\(prefix)u\($0)" }
            let fleet = try BenchScenario.connectFleet(common, deviceUsers: names, prefix: prefix)
            let dms = try BenchScenario.createConversations(fleet, common, what: "dm", requests: (0..<connections).map { pair in
                (2 * pair, { SyncRequest.dm(id: $0, user: names[2 * pair + 1]) })
            })
            let load = MessageLoad(
                fleet: fleet, plan: .init(conversations: dms.map { .init(id: $0, receivers: 2) },
                senders: (0..<connections).map { .init(device: 2 * $0 + (sendersOnEveryNode ? $0 % 2 : 0), conversation: $0) }, pace: .window(inflight, .messages), textBytes: textBytes, prefix: prefix))
            BenchScenario.run(load, on: fleet, common, scenario: "insert", fields: ["inflight": inflight, "size": textBytes, "senders_on_every_node": sendersOnEveryNode])
        } catch {
            BenchRun.fail("insert", error)
        }
    }
}
