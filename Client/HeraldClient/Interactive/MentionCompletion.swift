/// What Tab completes inside a message, sans-IO: `@` and the start of an id becomes a mention of one of the open
/// conversation's participants, written `@id` as the server recognises mentions (N2: `@` and the id, followed by a
/// character that is not part of an id).
public enum MentionCompletion {
    /// The words `partial` (the word before the cursor) may complete to: `@id` of every participant other than `me`
    /// when it starts with `@` (every known user when the conversation's participants are not known), else the bare
    /// ids of the people this device knows.
    public static func candidates(for partial: String, me: String, participants: [String], users: [String]) -> [String] {
        guard partial.hasPrefix("@") else { return users.filter { $0 != me } }
        let people = participants.isEmpty ? users : participants
        return people.filter { $0 != me && !$0.isEmpty }.map { "@" + $0 }
    }
}
