/// D1–D3: follows deep links from toast taps, push taps, `--open` and `open-url` the same way.
///
/// A conversation link lands on the list, then `thread(c)`, then the bottom or the named message (D2).
/// A link to a conversation this device does not know yet waits until it is known or the conversation
/// list has loaded without it (D3), then either completes or ends on the list with an error toast that
/// reveals nothing about the conversation.
///
/// ```swift
/// var router = DeepLinkRouter()
/// var events = router.handle(.open("herald://conversation/c1"), now: now)   // cold start: [.navigate(.list), .waiting(...)]
/// events = router.handle(.conversationsLoaded(["c1", "c2"]), now: now)
/// // [.navigate(.list), .navigate(.thread("c1")), .showBottom(conversation: "c1"), .completed(...)]
/// ```
public struct DeepLinkRouter: Sendable {
    /// Why a well-formed conversation link did not open.
    public enum Failure: String, Hashable, Sendable {
        /// The conversation does not exist or the user is not in it. Deliberately one case: the
        /// outcome must not tell which (D3, R5).
        case unavailable
        /// The conversation did not become known within the pending timeout.
        case timedOut
    }

    /// Everything the router reacts to.
    public enum Input: Hashable, Sendable {
        /// Follow this link text.
        case open(String)
        /// The conversation list finished loading: these are all the user's conversations (cold start done).
        case conversationsLoaded([String])
        /// One conversation became known (created, joined, or first message arrived).
        case conversationKnown(String)
        /// The server says this conversation cannot be opened (not found or not a participant).
        case conversationUnavailable(String)
        /// Time passed.
        case tick
    }

    /// The steps the host performs, in order.
    public enum Event: Hashable, Sendable {
        /// The link is malformed (D1): answer `invalid_link` and leave the scene as it was.
        case rejected(url: String, error: DeepLinkError)
        /// Go to this scene (one D2 step).
        case navigate(Scene)
        /// Show the bottom of the conversation's thread (D2).
        case showBottom(conversation: String)
        /// Show this message in the conversation's thread (D2); fall back to the bottom if it is not loaded.
        case showMessage(conversation: String, message: String)
        /// The conversation is not known yet; the link waits (D3).
        case waiting(DeepLink)
        /// The link was followed and ended in `scene` (the client's `route` event).
        case completed(DeepLink, scene: Scene)
        /// The link could not be followed; the device is left on the list (D3).
        case failed(DeepLink, Failure)
        /// Raise this toast (the D3 error toast).
        case raiseToast(ToastRequest)
    }

    /// The D3 error toast: says the link could not be opened and nothing about the conversation.
    public static let unavailableToast = ToastRequest(
        kind: .error, title: "Conversation unavailable", text: "This link can't be opened.",
        priority: .elevated, dedupeKey: "deeplink.unavailable")

    /// How long a link may wait for its conversation; nil waits until the list loads (default 10 s).
    public var pendingTimeout: Milliseconds?
    /// The link waiting for its conversation (the client's `pendingDeepLink`).
    public private(set) var pending: DeepLink?
    /// The conversations this device knows.
    public private(set) var knownConversations: Set<String> = []
    /// Whether the conversation list has loaded (after which an unknown conversation is unavailable).
    public private(set) var isLoaded = false
    private var pendingDeadline: Instant?

    /// Makes a router for a device that has loaded nothing yet.
    public init(pendingTimeout: Milliseconds? = .seconds(10)) {
        self.pendingTimeout = pendingTimeout
    }

    /// When the host must call `tick(now:)`: the pending link's timeout, if any.
    public var nextDeadline: Instant? { pendingDeadline }

    /// Applies one input at `now` and returns the steps to perform.
    public mutating func handle(_ input: Input, now: Instant) -> [Event] {
        var events: [Event] = []
        if let pendingDeadline, pendingDeadline <= now, let link = pending {
            events += fail(link, .timedOut)
        }
        switch input {
        case .open(let text):
            switch DeepLink.parse(text) {
            case .failure(let error): events.append(.rejected(url: text, error: error))
            case .success(let link): events += open(link, now: now)
            }
        case .conversationsLoaded(let conversations):
            knownConversations.formUnion(conversations)
            isLoaded = true
            events += resolvePending()
        case .conversationKnown(let conversation):
            knownConversations.insert(conversation)
            events += resolvePending()
        case .conversationUnavailable(let conversation):
            knownConversations.remove(conversation)
            if let link = pending, link.conversation == conversation { events += fail(link, .unavailable) }
        case .tick:
            break
        }
        return events
    }

    /// Same as `handle(.tick, now:)`.
    public mutating func tick(now: Instant) -> [Event] { handle(.tick, now: now) }

    /// Same as `handle(.open(url), now:)`.
    public mutating func open(_ url: String, now: Instant) -> [Event] { handle(.open(url), now: now) }

    // MARK: - Steps

    private mutating func open(_ link: DeepLink, now: Instant) -> [Event] {
        // A newer link replaces one still waiting.
        pending = nil
        pendingDeadline = nil
        switch link {
        case .messages:
            return [.navigate(.list), .completed(link, scene: .list)]
        case .notifications:
            return [.navigate(.notifications), .completed(link, scene: .notifications)]
        case .conversation(let conversation), .message(let conversation, _):
            if knownConversations.contains(conversation) { return complete(link, in: conversation) }
            if isLoaded { return fail(link, .unavailable) }
            pending = link
            pendingDeadline = pendingTimeout.map { now + $0 }
            return [.navigate(.list), .waiting(link)]
        }
    }

    private mutating func resolvePending() -> [Event] {
        guard let link = pending, let conversation = link.conversation else { return [] }
        if knownConversations.contains(conversation) { return complete(link, in: conversation) }
        if isLoaded { return fail(link, .unavailable) }
        return []
    }

    /// D2: list, then the thread, then the bottom or the named message.
    private mutating func complete(_ link: DeepLink, in conversation: String) -> [Event] {
        pending = nil
        pendingDeadline = nil
        let position: Event
        if case .message(_, let message) = link {
            position = .showMessage(conversation: conversation, message: message)
        } else {
            position = .showBottom(conversation: conversation)
        }
        return [.navigate(.list), .navigate(.thread(conversation)), position, .completed(link, scene: .thread(conversation))]
    }

    /// D3: end on the list with an error toast that names nothing.
    private mutating func fail(_ link: DeepLink, _ failure: Failure) -> [Event] {
        pending = nil
        pendingDeadline = nil
        return [.navigate(.list), .failed(link, failure), .raiseToast(Self.unavailableToast)]
    }
}

/// The router's input (`DeepLinkRouter.Input`), under a short name.
public typealias RouterInput = DeepLinkRouter.Input
/// The router's steps (`DeepLinkRouter.Event`), under the name the issue uses.
public typealias RouterEvent = DeepLinkRouter.Event
