/// G5: the wording of the system lines a group's thread shows when the group changes. The server writes them once, with
/// the names as they were then, so every participant and every later reader of the history sees the same line.
public enum GroupLines {
    /// G1: "Alice renamed the group to Team B".
    public static func renamed(by actor: String, to title: String) -> String { "\(actor) renamed the group to \(title)" }
    /// G2: "Alice added Carol".
    public static func added(by actor: String, member: String) -> String { "\(actor) added \(member)" }
    /// G3: "Alice removed Carol".
    public static func removed(by actor: String, member: String) -> String { "\(actor) removed \(member)" }
    /// G4: "Carol left".
    public static func left(_ member: String) -> String { "\(member) left" }
    /// G3: the backend took a member out (no participant did): "Carol was removed".
    public static func removedByBackend(_ member: String) -> String { "\(member) was removed" }
}
