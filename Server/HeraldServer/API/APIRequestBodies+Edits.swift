import HeraldProtocol
import HeraldSync

extension APIRequestBodies {
    /// PATCH /messages/{id} `{user, text}`: the sender's edit (M1); the text follows the rules of a posted message.
    static func editMessage(_ body: [UInt8], message: String) throws(APIError) -> BackendOperation {
        let fields = try JSONFields(body)
        let user = try fields.userId("user") ?? ""
        let text = try fields.requiredText("text", maxLength: APIFieldRules.maxTextLength)
        return .editMessage(message: try messageId(message), user: user, text: text)
    }

    /// POST /messages/{id}/unsend `{user}`: the sender's unsend (M2).
    static func unsendMessage(_ body: [UInt8], message: String) throws(APIError) -> BackendOperation {
        let fields = try JSONFields(body)
        let user = try fields.userId("user") ?? ""
        return .unsendMessage(message: try messageId(message), user: user)
    }

    /// A message id from the path: anything else names no message (404, as an unknown id).
    private static func messageId(_ text: String) throws(APIError) -> String {
        guard Identifiers.isId(text) else { throw APIError(404, "not_found", "no such message") }
        return text
    }
}

extension APIResponses {
    /// The answer to an edit or unsend: the message as it is now (`edited`, or `unsent` without content).
    struct RevisedMessage: Codable, Equatable {
        var message: MessageInfo
    }
}
