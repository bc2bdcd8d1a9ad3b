import Foundation
import HeraldClient

/// A message sent through ``HeraldSession`` that the server has not stored yet, with the id it keeps across
/// reconnects and restarts (R4: however often it goes out, it is stored once).
public struct PendingMessage: Sendable, Equatable, Codable {
    /// The conversation it goes to.
    public var conversation: String
    /// The id it keeps on every attempt (R4).
    public var clientMessageId: String
    /// The text; nil for an image.
    public var text: String?
    /// The image's URL; nil for text.
    public var imageURL: String?

    /// A pending text (`text`) or image (`imageURL`) message.
    public init(conversation: String, clientMessageId: String, text: String?, imageURL: String?) {
        self.conversation = conversation
        self.clientMessageId = clientMessageId
        self.text = text
        self.imageURL = imageURL
    }

    /// The core's input that sends it with its own id (the core keeps no pending-message type of its own).
    var input: ClientInput {
        .send(conversation: conversation, clientMessageId: clientMessageId, text: text, imageURL: imageURL)
    }
}

/// Where a session keeps its pending messages between runs. Saved before a message goes out and again once the
/// server stored it, so a restart sends exactly what was not stored.
public protocol PendingMessageStore: Sendable {
    /// The pending messages, oldest first; empty when none were saved.
    func load() throws(HeraldError) -> [PendingMessage]
    /// Replaces what was saved.
    func save(_ messages: [PendingMessage]) throws(HeraldError)
}

/// Pending messages in one file (`pending-messages.json`) in a directory of the app's, replaced atomically.
public struct PendingMessageFile: PendingMessageStore {
    /// The file's path.
    public let path: String

    /// Keeps the file in `directory`, which is created when missing.
    public init(directory: String) {
        path = (directory as NSString).appendingPathComponent("pending-messages.json")
    }

    /// The saved messages; none when the file does not exist.
    public func load() throws(HeraldError) -> [PendingMessage] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        do {
            return try JSONDecoder().decode([PendingMessage].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .storage("cannot read \(path): \(error)")
        }
    }

    /// Writes the messages to a new file that then replaces the old one, so a crash leaves one or the other.
    public func save(_ messages: [PendingMessage]) throws(HeraldError) {
        do {
            let directory = (path as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try JSONEncoder().encode(messages).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .storage("cannot write \(path): \(error)")
        }
    }
}
