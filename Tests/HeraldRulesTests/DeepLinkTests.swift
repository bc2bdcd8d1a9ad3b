import HeraldRules
import Testing

@Suite("D: deep links")
struct DeepLinkTests {
    @Test(
        "D1: the four forms parse and round-trip",
        arguments: [
            ("herald://messages", DeepLink.messages),
            ("herald://notifications", .notifications),
            ("herald://conversation/c1", .conversation("c1")),
            ("herald://conversation/Ab_9-x/message/m-7_Z", .message(conversation: "Ab_9-x", message: "m-7_Z")),
        ])
    func d1Accepted(text: String, expected: DeepLink) throws {
        let link = try DeepLink(parsing: text)
        #expect(link == expected)
        #expect(link.url == text)
    }

    @Test(
        "D1: anything else is rejected with an error naming the cause",
        arguments: [
            ("", DeepLinkError.empty),
            ("https://messages", .wrongScheme),
            ("HERALD://messages", .wrongScheme),
            ("herald:messages", .wrongScheme),
            (" herald://messages", .wrongScheme),
            ("herald://Messages", .unknownHost("Messages")),
            ("herald://CONVERSATION/c1", .unknownHost("CONVERSATION")),
            ("herald://user@messages", .unknownHost("user@messages")),
            ("herald://messages:80", .unknownHost("messages:80")),
            ("herald://", .unknownHost("")),
            ("herald://settings", .unknownHost("settings")),
            ("herald://messages/", .trailingSlash),
            ("herald://conversation/c1/", .trailingSlash),
            ("herald://messages/extra", .unexpectedPath("extra")),
            ("herald://notifications/n1", .unexpectedPath("n1")),
            ("herald://conversation", .missingID(.conversation)),
            ("herald://conversation//message/m1", .emptySegment),
            ("herald://conversation/c1/message", .missingID(.message)),
            ("herald://conversation/c1/messages/m1", .unexpectedPath("messages/m1")),
            ("herald://conversation/c1/message/m1/extra", .unexpectedPath("extra")),
            ("herald://conversation/c%31", .percentEncoding),
            ("herald://conversation/c1?x=1", .queryOrFragment),
            ("herald://conversation/c1#top", .queryOrFragment),
            ("herald://conversation/c.1", .invalidIDCharacter(.conversation, ".")),
            ("herald://conversation/c1/message/ｍ1", .invalidIDCharacter(.message, "ｍ")),
            ("herald://conversation/é", .invalidIDCharacter(.conversation, "é")),
            ("herald://conversation/c 1", .invalidIDCharacter(.conversation, " ")),
            ("herald://conversation/c1\n", .invalidIDCharacter(.conversation, "\n")),
        ])
    func d1Rejected(text: String, expected: DeepLinkError) {
        #expect(DeepLink.parse(text) == .failure(expected))
        #expect(expected.code == "invalid_link")
        #expect(!expected.description.isEmpty)
    }

    @Test("D1: ids longer than 128 characters and links longer than 512 bytes are rejected")
    func d1Lengths() {
        let longest = String(repeating: "a", count: 128)
        #expect(DeepLink.parse("herald://conversation/\(longest)") == .success(.conversation(longest)))
        let tooLong = longest + "a"
        #expect(DeepLink.parse("herald://conversation/\(tooLong)") == .failure(.idTooLong(.conversation, length: 129)))
        #expect(DeepLink.parse("herald://conversation/c1/message/\(tooLong)") == .failure(.idTooLong(.message, length: 129)))
        let huge = "herald://conversation/" + String(repeating: "b", count: 600)
        #expect(DeepLink.parse(huge) == .failure(.tooLong(length: huge.utf8.count)))
        #expect(DeepLink.isValidID("c-1_x"))
        #expect(!DeepLink.isValidID(""))
        #expect(!DeepLink.isValidID("a/b"))
    }

    @Test("D2: a conversation link lands on the list, then thread(c), then its bottom")
    func d2RoutesToBottom() {
        var router = DeepLinkRouter()
        _ = router.handle(.conversationsLoaded(["c1", "c2"]), now: .zero)
        let events = router.open("herald://conversation/c1", now: .zero)
        #expect(events == [
            .navigate(.list), .navigate(.thread("c1")), .showBottom(conversation: "c1"),
            .completed(.conversation("c1"), scene: .thread("c1")),
        ])
    }

    @Test("D2: a message link ends at the named message; messages and notifications links go to their scenes")
    func d2OtherForms() {
        var router = DeepLinkRouter()
        _ = router.handle(.conversationKnown("c1"), now: .zero)
        #expect(router.open("herald://conversation/c1/message/m7", now: .zero) == [
            .navigate(.list), .navigate(.thread("c1")), .showMessage(conversation: "c1", message: "m7"),
            .completed(.message(conversation: "c1", message: "m7"), scene: .thread("c1")),
        ])
        #expect(router.open("herald://messages", now: .zero) == [.navigate(.list), .completed(.messages, scene: .list)])
        #expect(router.open("herald://notifications", now: .zero) == [.navigate(.notifications), .completed(.notifications, scene: .notifications)])
    }

    @Test("D1: a malformed link is rejected and the scene stays as it was")
    func d1RejectedChangesNothing() {
        var router = DeepLinkRouter()
        #expect(router.open("herald://conversation/c1/", now: .zero) == [.rejected(url: "herald://conversation/c1/", error: .trailingSlash)])
        #expect(router.pending == nil)
    }

    @Test("D3: at cold start a link waits and completes as soon as its conversation is known")
    func d3PendingCompletes() {
        var router = DeepLinkRouter()
        let waiting = router.open("herald://conversation/c9", now: .zero)
        #expect(waiting == [.navigate(.list), .waiting(.conversation("c9"))])
        #expect(router.pending == .conversation("c9"))
        #expect(router.nextDeadline == Instant(milliseconds: 10_000))
        #expect(router.handle(.conversationKnown("c1"), now: Instant(milliseconds: 100)).isEmpty)
        let done = router.handle(.conversationsLoaded(["c1", "c9"]), now: Instant(milliseconds: 900))
        #expect(done.last == .completed(.conversation("c9"), scene: .thread("c9")))
        #expect(router.pending == nil)
        #expect(router.nextDeadline == nil)
    }

    @Test("D3: a conversation that does not exist or is not the user's ends on the list with an error toast revealing nothing")
    func d3Unavailable() {
        var router = DeepLinkRouter()
        _ = router.open("herald://conversation/secret", now: .zero)
        let failed = router.handle(.conversationsLoaded(["c1"]), now: Instant(milliseconds: 50))
        #expect(failed == [.navigate(.list), .failed(.conversation("secret"), .unavailable), .raiseToast(DeepLinkRouter.unavailableToast)])
        #expect(!DeepLinkRouter.unavailableToast.text.contains("secret"))
        #expect(DeepLinkRouter.unavailableToast.conversation == nil)
        #expect(DeepLinkRouter.unavailableToast.kind == .error)
        // Once loaded, an unknown conversation fails at once.
        let again = router.open("herald://conversation/other", now: Instant(milliseconds: 60))
        #expect(again == [.navigate(.list), .failed(.conversation("other"), .unavailable), .raiseToast(DeepLinkRouter.unavailableToast)])
        // The server may also refuse a pending link directly.
        var cold = DeepLinkRouter()
        _ = cold.open("herald://conversation/c5/message/m1", now: .zero)
        #expect(cold.handle(.conversationUnavailable("c5"), now: .zero).contains(.failed(.message(conversation: "c5", message: "m1"), .unavailable)))
    }

    @Test("D3: a pending link that never resolves times out onto the list")
    func d3Timeout() {
        var router = DeepLinkRouter(pendingTimeout: .seconds(2))
        _ = router.open("herald://conversation/c9", now: .zero)
        #expect(router.tick(now: Instant(milliseconds: 1_999)).isEmpty)
        let events = router.tick(now: Instant(milliseconds: 2_000))
        #expect(events.contains(.failed(.conversation("c9"), .timedOut)))
        #expect(router.pending == nil)
    }
}
