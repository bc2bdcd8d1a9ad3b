// A 50-line app on HeraldKit: connect, list conversations, send, print toasts.
//   HERALD_SERVER=ws://127.0.0.1:8080 HERALD_TOKEN=… ChatExample send bob "hello"   # sends, prints the stored message
//   HERALD_SERVER=ws://127.0.0.1:8080 HERALD_TOKEN=… ChatExample toasts 1           # prints the first toast, then quits
import Foundation
import HeraldKit

@main
struct ChatExample {
    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let server = environment["HERALD_SERVER"], let token = environment["HERALD_TOKEN"], let mode = arguments.first else {
            print("usage: HERALD_SERVER=ws://… HERALD_TOKEN=… ChatExample send <user> <text> | toasts <count>")
            exit(2)
        }
        let session = try HeraldSession(configuration: HeraldConfiguration(server: server, token: token))
        session.connect()
        var events = session.events.makeAsyncIterator()
        while let event = await events.next() {  // the stream is live once .online comes
            if case .connection(.online) = event { break }
            if case .connection(.stopped(let reason)) = event { print("stopped: \(reason)"); exit(1) }
        }
        print("online as \(session.user)")
        for conversation in try await session.conversations() {
            print("conversation \(conversation.id) \(conversation.title) unread \(conversation.unread)")
        }
        switch (mode, arguments.count) {
        case ("send", 3):
            let conversation = try await session.directConversation(with: arguments[1])
            let id = try session.send(arguments[2], to: conversation)
            while let event = await events.next() {
                if case .message(let message) = event, message.clientMessageId == id {
                    print("sent \(message.id) to \(conversation): \(message.text ?? "")")
                    break
                }
            }
        case ("toasts", _):
            var left = arguments.count > 1 ? Int(arguments[1]) ?? 1 : 1
            print("waiting for \(left) toast(s)")
            while left > 0, let event = await events.next() {
                guard case .toastShown(let toast) = event else { continue }
                print("toast \(toast.kind): \(toast.title): \(toast.text)")
                left -= 1
            }
        default:
            print("unknown mode \(mode)")
            exit(2)
        }
        await session.disconnect()
    }
}
