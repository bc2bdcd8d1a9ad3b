import HeraldRules
import Testing

@Suite("S2/S3/U3: the thread viewport")
struct ThreadViewportTests {
    private let twenty = (1...20).map { "m\($0)" }

    @Test("Viewport: opens at the bottom with 10 messages, all of which became visible")
    func opensAtBottom() {
        let (viewport, change) = ThreadViewport.open(conversation: "c1", messageIDs: twenty)
        #expect(viewport.visibleIDs == Array(twenty.suffix(10)))
        #expect(change.becameVisible == Array(twenty.suffix(10)))
        #expect(viewport.isAtBottom)
        #expect(viewport.newBelow == 0)
        let (short, _) = ThreadViewport.open(conversation: "c1", messageIDs: ["a", "b"])
        #expect(short.visibleIDs == ["a", "b"])
        #expect(short.isAtBottom)
    }

    @Test("S2: at bottom the viewport follows a new message, which alone became visible")
    func s2Follows() {
        var (viewport, _) = ThreadViewport.open(conversation: "c1", messageIDs: twenty)
        let change = viewport.append("m21")
        #expect(change == ViewportChange(becameVisible: ["m21"], followed: true))
        #expect(viewport.visibleIDs.last == "m21")
        #expect(viewport.visibleIDs.count == 10)
        #expect(viewport.isAtBottom)
    }

    @Test("S3: scrolled up, new messages wait below and are counted; jumping to bottom shows them")
    func s3NewBelow() {
        var (viewport, _) = ThreadViewport.open(conversation: "c1", messageIDs: twenty)
        let up = viewport.scrollUp(by: 5)
        #expect(up.becameVisible == ["m6", "m7", "m8", "m9", "m10"])
        #expect(!viewport.isAtBottom)
        #expect(viewport.append("m21") == ViewportChange(becameVisible: [], followed: false))
        #expect(viewport.append("m22").becameVisible.isEmpty)
        #expect(viewport.newBelow == 2)
        #expect(viewport.visibleIDs.first == "m6")
        let down = viewport.scrollDown(by: 6)
        #expect(down.becameVisible == ["m16", "m17", "m18", "m19", "m20", "m21"])
        #expect(viewport.newBelow == 1)
        let bottom = viewport.jumpToBottom()
        #expect(bottom.becameVisible == ["m22"])
        #expect(viewport.isAtBottom)
        #expect(viewport.newBelow == 0)
    }

    @Test("S3: `scroll down Int.max` from a scrolled-up window stops at the bottom instead of overflowing")
    func scrollDownByHugeCountStopsAtBottom() {
        var (viewport, _) = ThreadViewport.open(conversation: "c1", messageIDs: twenty)
        _ = viewport.scrollUp(by: 5)
        #expect(viewport.scrollDown(by: .max).becameVisible == ["m16", "m17", "m18", "m19", "m20"])
        #expect(viewport.isAtBottom)
        #expect(viewport.scrollDown(by: .max).becameVisible == [])
    }

    @Test("U3: scrolling reports exactly the ids that entered the window, never ones already visible")
    func u3OnlyNewlyVisible() {
        var (viewport, _) = ThreadViewport.open(conversation: "c1", messageIDs: twenty)
        #expect(viewport.scrollUp(by: 3).becameVisible == ["m8", "m9", "m10"])
        #expect(viewport.scrollDown(by: 1).becameVisible == ["m18"])
        // m8 left the window and comes back: it became visible again (the ledger ignores repeat acks).
        #expect(viewport.scrollUp(by: 1).becameVisible == ["m8"])
        #expect(viewport.scrollUp(by: 100).becameVisible == (1...7).map { "m\($0)" })
        #expect(viewport.scrollUp(by: 1).becameVisible == [])
        #expect(viewport.scrollDown(by: -4).becameVisible == [])
    }

    @Test("Viewport: older pages are prepended without moving the window or becoming visible")
    func prependOlder() {
        var (viewport, _) = ThreadViewport.open(conversation: "c1", messageIDs: twenty)
        let change = viewport.prependOlder(["o1", "o2", "m1"])
        #expect(change.becameVisible.isEmpty)
        #expect(viewport.messageIDs.prefix(3) == ["o1", "o2", "m1"])
        #expect(viewport.visibleIDs == Array(twenty.suffix(10)))
        #expect(viewport.scrollUp(by: 30).becameVisible == ["o1", "o2"] + (1...8).map { "m\($0)" })
        #expect(viewport.visibleIDs.first == "o1")
    }

    @Test("D2: revealing a named message puts it in the window; an unknown id changes nothing")
    func revealMessage() {
        var (viewport, _) = ThreadViewport.open(conversation: "c1", messageIDs: twenty)
        let change = viewport.reveal("m3")
        #expect(viewport.visibleIDs.contains("m3"))
        #expect(change?.becameVisible.contains("m3") == true)
        #expect(viewport.reveal("nope") == nil)
    }

    @Test("U2: nothing becomes visible in the background; returning shows the whole window")
    func hiddenInBackground() {
        var (viewport, _) = ThreadViewport.open(conversation: "c1", messageIDs: twenty)
        #expect(viewport.setShown(false).becameVisible.isEmpty)
        #expect(viewport.append("m21").becameVisible.isEmpty)
        #expect(viewport.scrollUp(by: 2).becameVisible.isEmpty)
        let back = viewport.setShown(true)
        #expect(back.becameVisible == viewport.visibleIDs)
        #expect(viewport.setShown(true).becameVisible.isEmpty)
    }

    // MARK: - Rows (a terminal that wraps long messages)

    @Test("U2/U3 on a terminal: the window is a run of rows; a message partly in it is drawn but not read")
    func partlyShownIsNotRead() {
        // m20 takes 4 rows and m19 3: six rows hold m20 and the last two rows of m19; nine hold m17-m20 whole.
        let heights = ["m20": 4, "m19": 3]
        let (viewport, change) = ThreadViewport.open(conversation: "c1", messageIDs: twenty, size: 6, heights: heights)
        #expect(viewport.visibleIDs == ["m19", "m20"])
        #expect(viewport.skippedRows == 1, "m19's first row is above the window")
        #expect(change.becameVisible == ["m20"], "m19 is not all on screen, so it is not read")
        let (roomy, roomyChange) = ThreadViewport.open(conversation: "c1", messageIDs: twenty, size: 9, heights: heights)
        #expect(roomy.visibleIDs == ["m17", "m18", "m19", "m20"])
        #expect(roomyChange.becameVisible == ["m17", "m18", "m19", "m20"])
    }

    @Test("U2: a message taller than the window opens on its last rows, unread; scrolling up by rows reaches its first row and reads it")
    func tallerThanWindow() {
        var (viewport, change) = ThreadViewport.open(conversation: "c1", messageIDs: ["a", "b"], size: 3, heights: ["b": 10])
        #expect(viewport.visibleIDs == ["b"])
        #expect(viewport.skippedRows == 7)
        #expect(change.becameVisible == [], "three of ten rows on screen: not read")
        for expectedSkip in [5, 3, 1] {
            #expect(viewport.scrollUp(by: 2).becameVisible == [])
            #expect(viewport.skippedRows == expectedSkip)
        }
        let top = viewport.scrollUp(by: 2)
        #expect(viewport.visibleIDs == ["a", "b"] && viewport.skippedRows == 0, "the message's first row is reachable")
        #expect(top.becameVisible == ["a", "b"], "every row of b has now been on screen: b is read")
        #expect(viewport.scrollDown(by: 100).becameVisible == [], "already read and still in the window: not reported again")
    }

    @Test("U2: rows seen only while the thread is shown count")
    func rowsCountOnlyWhenShown() {
        // b takes rows 1-12 of 13; four rows at a time. Opened at the bottom: b's rows 8-11 seen.
        var (viewport, _) = ThreadViewport.open(conversation: "c1", messageIDs: ["a", "b"], size: 4, heights: ["b": 12])
        _ = viewport.setShown(false)
        #expect(viewport.scrollUp(by: 2).becameVisible == [], "rows 6-9 pass while in the background")
        #expect(viewport.scrollUp(by: 100).becameVisible == [])
        #expect(viewport.setShown(true).becameVisible == ["a"], "b's rows 0-2 now, 8-11 before: not whole")
        #expect(viewport.scrollDown(by: 3).becameVisible == [], "rows 2-5: 6 and 7 were only passed in the background")
        #expect(viewport.scrollDown(by: 2).becameVisible == ["b"], "rows 4-7: now every row was on screen")
    }

    @Test("U2: a height change (another terminal width) starts a partly seen message's count over")
    func heightChangeStartsOver() {
        var (viewport, _) = ThreadViewport.open(conversation: "c1", messageIDs: ["a", "b"], size: 4, heights: ["b": 8])
        #expect(viewport.scrollUp(by: 2).becameVisible == [], "rows 2-7 of eight seen")
        // Wider: b takes 6 rows. The six rows seen were rows of another layout; only what is on screen now counts.
        #expect(viewport.resize(size: 4, heights: ["b": 6]).becameVisible == [])
        #expect(viewport.skippedRows == 2)
        #expect(viewport.scrollUp(by: 2).becameVisible == ["b"], "rows 0-3 now and 2-5 after the resize: all six")
    }

    @Test("U2: the unread divider above a message is not part of what must be seen: the message's own rows are")
    func dividerRowNeedNotBeSeen() {
        // m11 has the divider above it (2 rows, the first a decoration); ten rows show m11's text row and m12-m20.
        let (viewport, change) = ThreadViewport.open(
            conversation: "c1", messageIDs: twenty, size: 10, heights: ["m11": 2], leads: ["m11": 1])
        #expect(viewport.visibleIDs.first == "m11" && viewport.skippedRows == 1, "the divider is above the window")
        #expect(change.becameVisible == Array(twenty.suffix(10)), "m11's text is on screen: it is read")
        let (tall, tallChange) = ThreadViewport.open(
            conversation: "c1", messageIDs: ["a", "b"], size: 3, heights: ["b": 5], leads: ["b": 1])
        #expect(tall.skippedRows == 2)
        #expect(tallChange.becameVisible == [], "the divider aside, b's first text row was not on screen")
    }

    @Test("U2 at any size: paging up by the window's rows less one from the bottom reads every message, and none before all its rows were shown")
    func pagingReadsEverythingAtAnySize() {
        let ids = (1...12).map { "m\($0)" }
        for size in 1...14 {
            for tall in [1, 2, 5, 17, 40] {
                let heights = ["m3": tall, "m7": tall + 1, "m12": tall * 2]
                var (viewport, change) = ThreadViewport.open(conversation: "c1", messageIDs: ids, size: size, heights: heights)
                var read = Set(change.becameVisible)
                var shownRows: [String: Set<Int>] = [:]
                func noteWindow() {
                    var row = -viewport.skippedRows
                    for id in viewport.visibleIDs {
                        let rows = heights[id] ?? 1
                        for r in max(0, -row)..<max(max(0, -row), min(rows, size - row)) { shownRows[id, default: []].insert(r) }
                        row += rows
                    }
                }
                noteWindow()
                var guardSteps = 0
                while viewport.rowsAbove > 0 && guardSteps < 1000 {
                    guardSteps += 1
                    let step = viewport.scrollUp(by: max(1, size - 1))
                    noteWindow()
                    for id in step.becameVisible {
                        #expect((shownRows[id]?.count ?? 0) == (heights[id] ?? 1), "\(id) read only after all its rows (size \(size))")
                    }
                    read.formUnion(step.becameVisible)
                }
                #expect(read == Set(ids), "size \(size), tall \(tall): every message read after paging to the top")
            }
        }
    }

    @Test("Resize: a taller screen at the bottom shows older messages (they become visible); a shorter one reads nothing")
    func resizeAtBottom() {
        var (viewport, _) = ThreadViewport.open(conversation: "c1", messageIDs: twenty, size: 5)
        #expect(viewport.resize(size: 3).becameVisible == [])
        #expect(viewport.visibleIDs == ["m18", "m19", "m20"])
        #expect(viewport.isAtBottom)
        #expect(viewport.resize(size: 8).becameVisible == ["m13", "m14", "m15", "m16", "m17"])
        #expect(viewport.isAtBottom)
    }

    @Test("Resize: scrolled up, the first message stays first and the window grows downwards")
    func resizeScrolledUp() {
        var (viewport, _) = ThreadViewport.open(conversation: "c1", messageIDs: twenty, size: 5)
        _ = viewport.scrollUp(by: 10)
        #expect(viewport.visibleIDs == ["m6", "m7", "m8", "m9", "m10"])
        #expect(viewport.resize(size: 7, heights: ["m11": 2]).becameVisible == ["m11"])
        #expect(viewport.visibleIDs == ["m6", "m7", "m8", "m9", "m10", "m11"])
        #expect(!viewport.isAtBottom)
    }

    @Test("S2 with rows: at the bottom a tall new message pushes as many old ones out as it needs")
    func appendTallAtBottom() {
        var (viewport, _) = ThreadViewport.open(conversation: "c1", messageIDs: twenty, size: 5)
        _ = viewport.resize(size: 5, heights: ["m21": 3])
        let change = viewport.append("m21")
        #expect(change == ViewportChange(becameVisible: ["m21"], followed: true))
        #expect(viewport.visibleIDs == ["m19", "m20", "m21"])
    }
}
