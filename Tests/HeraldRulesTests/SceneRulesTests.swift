import HeraldRules
import Testing

@Suite("S: what a device shows when a message arrives")
struct SceneRulesTests {
    private let fromBob = ArrivingMessage(conversation: "c1", sender: "bob", isFromMe: false)

    @Test("S1: viewing c renders m inline, never a toast or push")
    func s1Inline() {
        for atBottom in [true, false] {
            let outcome = SceneRules.arrival(of: fromBob, scene: .thread("c1"), isForeground: true, viewportAtBottom: atBottom)
            #expect(outcome.presentation == .inline)
        }
    }

    @Test("S2: viewing c at bottom follows, and m is visible so read")
    func s2FollowAndRead() {
        let outcome = SceneRules.arrival(of: fromBob, scene: .thread("c1"), isForeground: true, viewportAtBottom: true)
        #expect(outcome == ArrivalOutcome(presentation: .inline, viewportFollows: true, countsAsUnread: false, isVisibleAtOnce: true))
    }

    @Test("S3: viewing c scrolled up does not scroll and m stays unread")
    func s3ScrolledUp() {
        let outcome = SceneRules.arrival(of: fromBob, scene: .thread("c1"), isForeground: true, viewportAtBottom: false)
        #expect(outcome == ArrivalOutcome(presentation: .inline, viewportFollows: false, countsAsUnread: true, isVisibleAtOnce: false))
    }

    @Test("S4: in the list, unread rises and an in-app toast shows")
    func s4List() {
        let outcome = SceneRules.arrival(of: fromBob, scene: .list, isForeground: true, viewportAtBottom: true)
        #expect(outcome == ArrivalOutcome(presentation: .toast, viewportFollows: false, countsAsUnread: true, isVisibleAtOnce: false))
    }

    @Test("S5: in another thread, a tab or the bell feed, unread rises and a toast shows, never a push")
    func s5OtherForegroundScenes() {
        for scene in [Scene.thread("c2"), .tab("settings"), .notifications] {
            let outcome = SceneRules.arrival(of: fromBob, scene: scene, isForeground: true, viewportAtBottom: true)
            #expect(outcome.presentation == .toast, "\(scene)")
            #expect(outcome.countsAsUnread)
        }
    }

    @Test("S6: in the background there is no toast but a push, also for the thread left behind")
    func s6Background() {
        for (scene, foreground) in [(Scene.background, true), (.background, false), (.thread("c1"), false), (.list, false)] {
            let outcome = SceneRules.arrival(of: fromBob, scene: scene, isForeground: foreground, viewportAtBottom: true)
            #expect(outcome.presentation == .push, "\(scene) foreground \(foreground)")
            #expect(outcome.countsAsUnread)
            #expect(!outcome.isVisibleAtOnce)
        }
    }

    @Test("S7: the sender's own messages never raise unread, a toast or a push; they render inline in the thread")
    func s7OwnMessages() {
        let mine = ArrivingMessage(conversation: "c1", sender: "me", isFromMe: true)
        for scene in [Scene.list, .thread("c2"), .tab("x"), .notifications, .background] {
            let outcome = SceneRules.arrival(of: mine, scene: scene, isForeground: scene.isForeground, viewportAtBottom: true)
            #expect(outcome.presentation == .nothing)
            #expect(!outcome.countsAsUnread)
        }
        let inThread = SceneRules.arrival(of: mine, scene: .thread("c1"), isForeground: true, viewportAtBottom: true)
        #expect(inThread.presentation == .inline)
        #expect(!inThread.countsAsUnread)
    }

    @Test("Anchors: each scene exposes the spec's anchor strings")
    func anchors() {
        #expect(Scene.list.anchor == "messages.conversationsList")
        #expect(Scene.thread("c1").anchor == "messages.thread(c1)")
        #expect(Scene.notifications.anchor == "notifications.feed")
        #expect(Scene.tab("x").anchor == nil)
        #expect(Anchor.conversationRow("c1") == "messages.conversationsList.row(c1)")
        #expect(Anchor.inAppToast == "messages.conversationsList.inAppToast")
        #expect(Anchor.message("m7") == "messages.thread.message(m7)")
        #expect(Anchor.threadBottom == "messages.thread.bottom")
        #expect(Anchor.scrollToBottomButton == "messages.thread.scrollToBottomButton")
        let names = [Scene.list, .thread("c"), .tab("t"), .notifications, .background].map(\.name)
        #expect(names == ["list", "thread", "tab", "notifications", "background"])
    }
}
