import Foundation

/// One JSON line printed by `herald --script` (client-script.md), decoded, with accessors for `state` lines.
public struct OutputLine: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: `object` comes from JSONSerialization and is never mutated.

    /// The line as printed.
    public let raw: String
    /// The decoded object.
    public let object: [String: Any]

    /// Decodes a line; nil unless it is a JSON object.
    public init?(_ raw: String) {
        guard let data = raw.data(using: .utf8), let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            return nil
        }
        self.raw = raw
        self.object = object
    }

    public var description: String { raw }
    public subscript(_ key: String) -> Any? { object[key] }
    public func string(_ key: String) -> String? { object[key] as? String }
    public func int(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
    public func bool(_ key: String) -> Bool? { (object[key] as? NSNumber)?.boolValue }
    public func dict(_ key: String) -> [String: Any]? { object[key] as? [String: Any] }
    public func array(_ key: String) -> [Any]? { object[key] as? [Any] }

    /// `ok`, `error`, `state` or `event`.
    public var type: String? { string("type") }
    /// The event name of an `event` line.
    public var event: String? { string("event") }
    /// Every command is answered by exactly one line: `ok`, `error`, or (for `state`) a `state` line.
    public var isAnswer: Bool { type == "ok" || type == "error" || type == "state" }

    // MARK: state lines

    /// unread(c) of a `state` line.
    public func unread(_ conversation: String) -> Int? { (dict("unread")?[conversation] as? NSNumber)?.intValue }
    /// The visible toast, if any.
    public var toast: [String: Any]? { dict("toast") }
    /// The viewport, if any.
    public var viewport: [String: Any]? { dict("viewport") }
    /// Visible message ids of the viewport.
    public var visible: [String] { (viewport?["visible"] as? [String]) ?? [] }
    /// The pushes the device holds.
    public var pushes: [[String: Any]] { (array("pushes") as? [[String: Any]]) ?? [] }
    /// The bell object.
    public var bell: [String: Any]? { dict("bell") }
    /// Conversation ids in list order.
    public var conversationOrder: [String] { ((array("conversations") as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String } }
}
