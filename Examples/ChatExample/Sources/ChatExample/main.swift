// A 50-line app on HeraldKit: connect, list conversations, send, print toasts.
//   HERALD_SERVER=ws://127.0.0.1:8080 HERALD_TOKEN=… chat-example send bob "hello"   # sends, prints the stored message
//   HERALD_SERVER=ws://127.0.0.1:8080 HERALD_TOKEN=… chat-example toasts 1           # prints the first toast, then quits
import Foundation
import HeraldKit

let environment = ProcessInfo.processInfo.environment
let arguments = CommandLine.arguments.dropFirst()
guard let server = environment["HERALD_SERVER"], let token = environment["HERALD_TOKEN"], let mode = arguments.first else {
    print("usage: HERALD_SERVER=ws://… HERALD_TOKEN=… chat-example send <user> <text> | toasts <count>")
    exit(2)
}

let session = try HeraldSession(configuration: HeraldConfiguration(server: server, token: token))
session.connect()
var events = session.events.makeAsyncIterator()
// Wait for the stream to be live.
while let event = await events.next() {
    if case .connection(.online) = event { break }
    if case .connection(.stopped(let reason)) = event { print("stopped: \(reason)"); exit(1) }
}
print("online as \(session.user)")
for conversation in try await session.conversations() {
    print("conversation \(conversation.id) \(conversation.title) unread \(conversation.unread)")
}

switch mode {
case "send" where arguments.count == 3:
    let peer = arguments[arguments.startIndex + 1], text = arguments[arguments.startIndex + 2]
    let conversation = try await session.directConversation(with: peer)
    let id = try session.send(text, to: conversation)
    while let event = await events.next() {
        if case .message(let message) = event, message.clientMessageId == id {
            print("sent \(message.id) to \(conversation): \(message.text ?? "")")
            break
        }
    }
case "toasts":
    var left = Int(arguments.dropFirst().first ?? "1") ?? 1
    print("waiting for \(left) toast(s)")
    while left > 0, let event = await events.next() {
        if case .toastShown(let toast) = event {
            print("toast \(toast.kind): \(toast.title): \(toast.text)")
            left -= 1
        }
    }
default:
    print("unknown mode \(mode)")
    exit(2)
}
await session.disconnect()
