import HeraldClient
import HeraldRules
import Testing

/// The pure rules behind the terminal's navigation and help: calendar days for date separators, "did you mean",
/// `@` completion, the next conversation with activity, and the help screen laid out and paged.
@Suite("Terminal navigation and help: day separators, typo suggestions, mentions, activity order, help pages")
struct NavigationLogicTests {
    /// 2026-12-07 00:00 UTC, a Monday, in ms since the epoch.
    private let mondayMidnightUTC: Int64 = 1_796_601_600_000

    @Test("Days: a day number is the local calendar day; Monday 7 December 2026 is named so; the year only for another year")
    func calendarDays() {
        let day = CalendarDay.day(ofMilliseconds: mondayMidnightUTC, utcOffsetSeconds: 0)
        #expect(CalendarDay.civil(day) == (2026, 12, 7))
        #expect(CalendarDay.label(day: day, today: day) == "Monday 7 December")
        #expect(CalendarDay.line(day: day, today: day) == "── Monday 7 December ──")
        #expect(CalendarDay.label(day: day, today: day + 365) == "Monday 7 December 2026", "another year is named")
        #expect(CalendarDay.label(day: 0, today: nil) == "Thursday 1 January 1970")
        #expect(CalendarDay.label(day: -1, today: nil) == "Wednesday 31 December 1969", "before 1970 too")
        #expect(CalendarDay.civil(CalendarDay.day(ofMilliseconds: 951_782_400_000, utcOffsetSeconds: 0)) == (2000, 2, 29), "leap day")
    }

    @Test("Days: the offset from UTC decides the day (injected, not read from the machine); extreme timestamps do not trap")
    func offsetDecidesTheDay() {
        let lateSunday = mondayMidnightUTC - 60_000  // 23:59 UTC on Sunday
        #expect(CalendarDay.day(ofMilliseconds: lateSunday, utcOffsetSeconds: 0) + 1 == CalendarDay.day(ofMilliseconds: mondayMidnightUTC, utcOffsetSeconds: 0))
        #expect(CalendarDay.day(ofMilliseconds: lateSunday, utcOffsetSeconds: 3600) == CalendarDay.day(ofMilliseconds: mondayMidnightUTC, utcOffsetSeconds: 0),
                "00:59 on Monday one hour east")
        #expect(CalendarDay.separator(previous: lateSunday, current: mondayMidnightUTC, utcOffsetSeconds: 0) != nil, "midnight between them")
        #expect(CalendarDay.separator(previous: lateSunday, current: mondayMidnightUTC, utcOffsetSeconds: 3600) == nil, "the same day an hour east")
        #expect(CalendarDay.separator(previous: lateSunday, current: mondayMidnightUTC, utcOffsetSeconds: -3600) == nil, "the same day an hour west")
        #expect(CalendarDay.separator(previous: nil, current: mondayMidnightUTC, utcOffsetSeconds: 0) != nil, "the first message of a conversation")
        for extreme in [Int64.max, Int64.min, 0, -1] {
            _ = CalendarDay.label(day: CalendarDay.day(ofMilliseconds: extreme, utcOffsetSeconds: Int.max), today: nil)
        }
    }

    @Test("Typos: edit distance counts a swap of neighbours as one edit; the nearest command is suggested, nothing far off")
    func suggestions() {
        #expect(CommandSuggestion.distance("opne", "open") == 1)
        #expect(CommandSuggestion.distance("kitten", "sitting") == 3)
        #expect(CommandSuggestion.distance("", "abc") == 3)
        let names = ChatInput.commands.map(\.name)
        #expect(CommandSuggestion.closest(to: "opne", among: names) == ["open"])
        #expect(CommandSuggestion.closest(to: "membres", among: names) == ["members"])
        #expect(CommandSuggestion.closest(to: "frobnicate", among: names).isEmpty)
        #expect(CommandSuggestion.notice(unknown: "opne", among: names) == "unknown command /opne; did you mean /open?")
        #expect(CommandSuggestion.notice(unknown: "frobnicate", among: names) == "unknown command /frobnicate: /help lists them")
    }

    @Test("Typos: the chat input answers an unknown command with the suggestion and runs nothing")
    func unknownCommandSuggests() {
        let context = ChatContext(me: "alice", scene: .list, conversations: [], users: [], newestFromOthers: nil)
        #expect(ChatInput.interpret("/opne 1", in: context) == .notice("unknown command /opne; did you mean /open?"))
        #expect(ChatInput.interpret("/qiut", in: context) == .notice("unknown command /qiut; did you mean /quit?"))
    }

    @Test("One table: every command the table holds is run (never 'unknown'), and the help lists every one of them and its aliases")
    func helpListsEveryCommand() {
        let thread = ChatContext(me: "alice", scene: .thread("c1"), conversations: [("c1", "Bob")], users: ["bob"], newestFromOthers: "m1", newestMine: "m2")
        let help = HelpScreen.lines(width: 80).joined(separator: "\n")
        for command in ChatInput.commands {
            for name in [command.name] + command.aliases {
                if case .notice(let text) = ChatInput.interpret("/\(name)", in: thread) {
                    #expect(!text.hasPrefix("unknown command"), "/\(name) is in the table, so it runs")
                }
                #expect(help.contains("/" + name), "/help names /\(name)")
            }
        }
        for name in ["quit", "back", "bell", "open-url", "bottom", "read-all", "unsend", "scroll"] {
            #expect(ChatInput.command(named: name) != nil, "/\(name) is a command")
        }
    }

    @Test("Help at 50 columns: no row wider than the screen, every word of every usage and summary kept")
    func helpFitsNarrowScreens() {
        for width in [50, 80, 120] {
            let lines = HelpScreen.lines(width: width)
            #expect(lines.allSatisfy { DisplayWidth.of($0) <= width }, "nothing cut at \(width) columns")
            let words = Set(lines.flatMap { $0.split(separator: " ").map(String.init) })
            for command in ChatInput.commands {
                for word in (command.usage + " " + command.summary).split(separator: " ") {
                    #expect(words.contains(String(word)), "\(word) of \(command.name) at \(width)")
                }
            }
        }
    }

    @Test("Help pages: taller than the area it shows a page and says where more is; paging down reaches the last row; every row is on some page")
    func helpPages() {
        let lines = (1...30).map { "row \($0)" }
        let first = HelpScreen.page(lines, top: 0, height: 10)
        #expect(first.rows.count == 10 && first.rows.first == "row 1" && first.rows.last?.contains("more below") == true)
        var top = 0
        var shown = Set<String>()
        for _ in 0..<20 {
            let page = HelpScreen.page(lines, top: top, height: 10)
            #expect(page.rows.count <= 10)
            shown.formUnion(page.rows)
            top = page.top + 8
        }
        #expect(shown.isSuperset(of: lines), "nothing is skipped by paging")
        let last = HelpScreen.page(lines, top: 1000, height: 10)
        #expect(last.rows.last == "row 30" && last.rows.first?.contains("more above") == true)
        #expect(HelpScreen.page(Array(lines.prefix(5)), top: 3, height: 10) == (Array(lines.prefix(5)), 0), "a help that fits is shown whole")
    }

    @Test("@ completion: @b Tab completes a participant's id as a mention; several matches are listed; yourself is not offered")
    func mentionCompletion() {
        let group = ChatContext(
            me: "alice", scene: .thread("c3"), conversations: [("c3", "Team")], users: ["alice", "bob", "bea", "carol", "zed"],
            newestFromOthers: nil, participants: ["alice", "bob", "carol"])
        #expect(ChatInput.complete("thanks @b", in: group).line == "thanks @bob ", "only participants: bea is not in the group")
        #expect(ChatInput.complete("@c", in: group).line == "@carol ")
        #expect(ChatInput.complete("@a", in: group).line == nil, "not yourself")
        let both = ChatInput.complete("hi @", in: group)
        #expect(both.line == nil && both.matches == ["@bob", "@carol"])
        #expect(ChatInput.complete("hi b", in: group).matches == ["bea", "bob"], "a bare word still completes any known id")
    }

    @Test("Alt-A order: conversations with unread (or marked unread) other than the open one, the most recent first")
    func activityOrder() {
        let entries: [ActivityOrder.Entry] = [
            .init(id: "c1", unread: 0, lastActivity: 900),
            .init(id: "c2", unread: 3, lastActivity: 100),
            .init(id: "c3", unread: 1, lastActivity: 500),
            .init(id: "c4", unread: 0, markedUnread: true, lastActivity: 300),
            .init(id: "c5", unread: 2, lastActivity: nil),
        ]
        #expect(ActivityOrder.active(entries, current: nil) == ["c3", "c4", "c2", "c5"])
        #expect(ActivityOrder.next(entries, current: "c3") == "c4", "the open one is not next")
        #expect(ActivityOrder.next([.init(id: "c1", unread: 0, lastActivity: 1)], current: nil) == nil)
    }
}
