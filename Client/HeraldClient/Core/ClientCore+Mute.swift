import HeraldProtocol
import HeraldRules

/// N1-N4 on the client: the `mute`, `unmute`, `quiet` and `mark-unread` commands, the server's `settings` events, and
/// how loud an arriving message is.
extension ClientCore {
    /// Sends the command's request; the answer is `ok` once the server stored it (its `settings` event comes first).
    mutating func beginAlertCommand(_ command: ClientCommand) {
        switch command {
        case .mute(let conversation, let minutes):
            // Minutes, not an end time: the server's clock decides when the mute ends, whatever this device's clock says.
            request(.mute(conversation: conversation, until: nil, minutes: minutes), purpose: .command(retryable: true))
        case .unmute(let conversation):
            request(.unmute(conversation: conversation), purpose: .command(retryable: true))
        case .quiet(let on):
            request(.quiet(on: on), purpose: .command(retryable: true))
        case .markUnread(let conversation):
            request(.markUnread(conversation: conversation), purpose: .command(retryable: true))
        default:
            answerError(code: "bad_arguments", message: "not an alert setting command")
        }
    }

    /// A snapshot's settings replace what this device knew (R3 reload).
    mutating func applyAlertSnapshot(_ response: ResponseFrame) {
        alerts.quiet = response.quiet ?? false
        applyToastEvents(toasts.handle(.quietHours(alerts.quiet), now: now))
        alerts.mutedUntil = [:]
        for info in response.conversations ?? [] {
            if info.muted == true { alerts.mutedUntil[info.id] = info.mutedUntil ?? MuteRules.forever }
            applyUnread(unread.handle(.marked(conversation: info.id, marked: info.markedUnread == true, sequence: nil)))
        }
    }

    /// A `settings` event: a mute, quiet hours or a mark changed on one of the user's devices (N1, N3, N4).
    mutating func settingsChanged(_ frame: EventFrame) {
        var change = SettingsChange(sequence: frame.seq)
        if let quiet = frame.quiet {
            alerts.quiet = quiet
            applyToastEvents(toasts.handle(.quietHours(quiet), now: now))
            change.quiet = quiet
        }
        if let conversation = frame.conversationId {
            change.conversation = conversation
            if let muted = frame.muted {
                alerts.mutedUntil[conversation] = muted ? (frame.mutedUntil ?? MuteRules.forever) : nil
                change.muted = muted
                change.mutedUntil = frame.mutedUntil
            }
            if let marked = frame.markedUnread {
                var events = unread.handle(.marked(conversation: conversation, marked: marked, sequence: frame.seq))
                if let seq = frame.seq, let count = frame.unread?[conversation] {
                    events += unread.handle(.serverUpdate(UnreadUpdate(conversation: conversation, unread: count, sequence: seq)))
                }
                applyUnread(events)
                change.markedUnread = marked
                change.counts = unreadCounts(in: conversation)
            }
        }
        emit(.settings(change))
    }

    /// N1-N3 for a message arriving on this device.
    func alert(for message: MessageInfo) -> RecipientAlert {
        RecipientAlert(
            muted: alerts.isMuted(message.conversation, at: message.createdAt), mentioned: message.mentions?.contains(user) ?? false,
            quiet: alerts.quiet)
    }
}
