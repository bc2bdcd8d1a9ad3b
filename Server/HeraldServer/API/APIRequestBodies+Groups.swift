import HeraldProtocol
import HeraldSync

extension APIRequestBodies {
    /// PATCH /conversations/{id} `{user, title}`: renames the group on behalf of `user`, a participant, exactly like their
    /// own `group.rename` (G1); the title follows the rule of a new group's.
    static func renameGroup(_ body: [UInt8], conversation: String) throws(APIError) -> BackendOperation {
        let fields = try JSONFields(body)
        let user = try fields.userId("user") ?? ""
        let title = try fields.requiredText("title", maxLength: APIFieldRules.maxTitleLength)
        guard Identifiers.isLabel(title) else { throw .badRequest("title must be \(Identifiers.labelRule)") }
        return .renameGroup(conversation: conversation, user: user, title: title)
    }

    /// POST /conversations/{id}/members `{user, member}`: adds `member` on behalf of `user`, a participant, exactly like
    /// their own `group.add` (G2).
    static func addMember(_ body: [UInt8], conversation: String) throws(APIError) -> BackendOperation {
        let fields = try JSONFields(body)
        let user = try fields.userId("user") ?? ""
        let member = try fields.userId("member") ?? ""
        return .addMember(conversation: conversation, user: user, member: member)
    }
}
