import HeraldClient
import HeraldProtocol
import HeraldRules
import Testing

/// The core behind Home and Alt-U: `scroll top` and `scroll unread` load older pages as needed and read only what they
/// bring into the window (U2/U3); the thread's date separators take rows the viewport counts.
@Suite("Client core: scroll top / scroll unread, unread above, date separators")
struct ClientNavigationTests {
    /// Alice with c1 open on a 10-row screen, messages m(first)…m60 from bob loaded (older ones exist when first > 1).
    private func opened(unread: Int, first: Int) -> CoreHarness {
        var h = CoreHarness()
        h.connect(unread: unread)
        h.core.setScreen(ScreenGeometry(width: 80, rows: 10))
        h.requests = []
        h.command("open thread c1")
        h.respond {
            $0.messages = (first...60).reversed().map { CoreHarness.message("m\($0)", text: "line \($0)", at: Int64($0)) }
            $0.hasMore = first > 1
        }
        return h
    }

    private func acked(_ h: CoreHarness) -> [String] {
        h.requests.flatMap { frame -> [String] in
            if case .ack(let ids) = frame.request { return ids }
            return []
        }
    }

    @Test("scroll unread with more unread than the first page: an older page is loaded, then the first unread is the window's first message, under its divider; only the window is read")
    func firstUnreadBeyondThePage() throws {
        var h = opened(unread: 55, first: 11)
        let model = h.core.screenModel(now: h.now)
        #expect(model.unreadAbove == 55 - model.thread.count, "every unread message not in the window is above it")
        h.requests = []
        h.command("scroll unread")
        guard case .history(_, let before, _)? = h.requests.last?.request else { Issue.record("no older page asked for"); return }
        #expect(before == "m11")
        h.respond {
            $0.messages = (1...10).reversed().map { CoreHarness.message("m\($0)", text: "line \($0)", at: Int64($0)) }
            $0.hasMore = false
        }
        let after = h.core.screenModel(now: h.now)
        #expect(after.thread.first?.id == "m6", "55 unread of 60: the first unread is m6")
        #expect(after.thread.first?.unreadDividerAbove == true)
        #expect(after.unreadAbove == 0)
        #expect(Set(acked(h)).isSubset(of: Set(after.thread.map(\.id))), "only messages in the window are read")
    }

    @Test("scroll unread when nothing was unread at opening answers no_unread and moves nothing")
    func nothingUnread() {
        var h = opened(unread: 0, first: 1)
        let before = h.core.screenModel(now: h.now).thread.map(\.id)
        h.command("scroll unread")
        #expect(h.lastAnswer?["code"] == "no_unread")
        #expect(h.core.screenModel(now: h.now).thread.map(\.id) == before)
    }

    @Test("scroll top loads every older page, then shows the first message with its date separator at the top")
    func topLoadsEveryPage() throws {
        var h = opened(unread: 0, first: 21)
        h.requests = []
        h.command("scroll top")
        for range in [11...20, 1...10] {
            guard case .history(_, let before, _)? = h.requests.last?.request else { Issue.record("no older page asked for"); return }
            #expect(before == "m\(range.upperBound + 1)")
            h.respond {
                $0.messages = range.reversed().map { CoreHarness.message("m\($0)", text: "line \($0)", at: Int64($0)) }
                $0.hasMore = range.lowerBound > 1
            }
        }
        let model = h.core.screenModel(now: h.now)
        #expect(model.thread.first?.id == "m1")
        #expect(model.thread.first?.dayAbove == 0, "the conversation's first day (1970-01-01 at these times)")
        #expect(model.threadSkipRows == 0)
    }

    @Test("scroll top stops after 20 pages (a huge history does not stall one key press) at the oldest loaded message; the next press goes on")
    func topIsBoundedPerPress() {
        var h = opened(unread: 0, first: 60)
        h.command("scroll top")
        var oldest = 60
        var pages = 0
        while case .history(_, let before, _)? = h.requests.last?.request, before == "m\(oldest)", pages < 30 {
            pages += 1
            let range = (oldest - 2)...(oldest - 1)
            h.respond {
                $0.messages = range.reversed().map { CoreHarness.message("m\($0)", text: "line \($0)", at: Int64($0)) }
                $0.hasMore = true
            }
            oldest = range.lowerBound
        }
        #expect(pages == 20)
        #expect(h.core.screenModel(now: h.now).thread.first?.id == "m\(oldest)", "the oldest loaded message at the top")
        h.command("scroll top")
        guard case .history(_, let before, _)? = h.requests.last?.request else { Issue.record("the next press loads on"); return }
        #expect(before == "m\(oldest)")
    }

    @Test("Date separators take a row the viewport counts (U2: what is counted is what is drawn)")
    func separatorsTakeRows() {
        var h = CoreHarness()
        h.connect()
        h.core.setScreen(ScreenGeometry(width: 80, rows: 6, utcOffsetSeconds: 0))
        h.command("open thread c1")
        let day: Int64 = 86_400_000
        h.respond {
            $0.messages = (1...10).reversed().map { CoreHarness.message("m\($0)", text: "line \($0)", at: $0 <= 8 ? Int64($0) : day + Int64($0)) }
            $0.hasMore = true
        }
        let model = h.core.screenModel(now: h.now)
        #expect(model.thread.map(\.id) == ["m7", "m8", "m9", "m10"], "five rows: m9 takes two with its separator, so m6 is out")
        #expect(model.thread.first { $0.id == "m9" }?.dayAbove == 1, "the second day starts at m9")
        #expect(model.thread.allSatisfy { $0.id == "m9" || $0.dayAbove == nil }, "the oldest loaded is not the first: no separator above it")
    }
}
