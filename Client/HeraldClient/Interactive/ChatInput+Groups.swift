import HeraldRules

extension ChatInput {
    /// `/rename <title>`, `/add <user>` and `/remove <user>` in an open group (G1-G3). The server decides who may and
    /// answers a direct conversation with an error; removing someone asks first, as leaving does, and removing yourself
    /// is leaving.
    static func groupChange(_ name: String, rest: String, arguments: [String], in context: ChatContext) -> ChatAction {
        guard let open = context.scene.conversation else { return .notice("open a group first: /\(name) changes the open group") }
        let title = TerminalText.line(context.conversations.first { $0.id == open }?.title ?? open)
        switch name {
        case "rename":
            guard !rest.isEmpty else { return .notice("usage: /rename <new title>") }
            return .commands([.renameGroup(conversation: open, title: rest)])
        case "add":
            guard arguments.count == 1 else { return .notice("usage: /add <user> (/users lists people)") }
            return .commands([.addMember(conversation: open, user: arguments[0])])
        default:
            guard arguments.count == 1 else { return .notice("usage: /remove <user> (/members lists them)") }
            if arguments[0] == context.me {
                return .confirm(question: "Leave \(title)? You will not see its new messages. (y/N)", commands: [.leave(conversation: open)])
            }
            return .confirm(
                question: "Remove \(TerminalText.line(arguments[0])) from \(title)? (y/N)",
                commands: [.removeMember(conversation: open, user: arguments[0])])
        }
    }
}
