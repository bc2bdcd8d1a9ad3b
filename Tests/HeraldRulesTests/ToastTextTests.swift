import HeraldRules
import Testing

@Suite("T10: message toast text")
struct ToastTextTests {
    @Test("T10: the title is the sender, or \"Group title - Sender\" for a group")
    func t10Title() {
        #expect(ToastText.messageToast(senderName: "Bob", groupTitle: nil, text: "hi", isImage: false).title == "Bob")
        #expect(ToastText.messageToast(senderName: "Bob", groupTitle: "", text: "hi", isImage: false).title == "Bob")
        #expect(ToastText.messageToast(senderName: "Carol", groupTitle: "Team A", text: "hi", isImage: false).title == "Team A - Carol")
    }

    @Test("T10: the body is cut to 50 characters plus \"...\"; the accessibility label keeps the full text")
    func t10Cut() {
        let fifty = String(repeating: "abcde", count: 10)
        let exact = ToastText.messageToast(senderName: "Bob", groupTitle: nil, text: fifty, isImage: false)
        #expect(exact.body == fifty)
        let long = fifty + "XYZ"
        let cut = ToastText.messageToast(senderName: "Bob", groupTitle: nil, text: long, isImage: false)
        #expect(cut.body == fifty + "...")
        #expect(cut.body.count == 53)
        #expect(cut.accessibilityLabel == long)
    }

    @Test("T10: emoji and combining marks are never split by the cut")
    func t10GraphemeClusters() {
        let family = "👨‍👩‍👧‍👦"  // one Character of seven scalars
        let flag = "🇫🇷"
        let accented = "e\u{301}"  // e + combining acute
        let text = String(repeating: "x", count: 49) + family + flag + accented
        let preview = ToastText.messageToast(senderName: "Bob", groupTitle: nil, text: text, isImage: false)
        #expect(preview.body == String(repeating: "x", count: 49) + family + "...")
        let marks = String(repeating: accented, count: 60)
        let cutMarks = ToastText.cut(marks)
        #expect(cutMarks == String(repeating: accented, count: 50) + "...")
        #expect(cutMarks.unicodeScalars.count == 103)
    }

    @Test("T10: the cut is the first 50 characters whatever stands at the 50th and 51st place: ASCII, CR LF, a combining mark, an emoji")
    func t10CutAtEveryBoundary() {
        // The cut of a text that starts with plain ASCII takes bytes, not characters; a CR, a combining mark or any
        // other non-ASCII byte near the limit must still be cut as characters.
        let pieces = ["x", "\r\n", "\r", "\n", "\u{301}", "é", "👨‍👩‍👧‍👦", "\u{200D}", " "]
        for first in pieces {
            for second in pieces {
                for lead in 47...51 {
                    let text = String(repeating: "a", count: lead) + first + second + String(repeating: "b", count: 5)
                    let expected = text.count > 50 ? String(text.prefix(50)) + "..." : text
                    #expect(ToastText.cut(text) == expected, "\(lead) a, then \(first.unicodeScalars.map(\.value)) \(second.unicodeScalars.map(\.value))")
                }
            }
        }
        #expect(ToastText.cut(String(repeating: "a", count: 50)) == String(repeating: "a", count: 50))
        #expect(ToastText.cut(String(repeating: "a", count: 51)) == String(repeating: "a", count: 50) + "...")
    }

    @Test("T10: an image reads \"📷 Image\"; no text or empty text reads \"New message\"")
    func t10ImageAndEmpty() {
        #expect(ToastText.messageToast(senderName: "Bob", groupTitle: nil, text: nil, isImage: true).body == "📷 Image")
        #expect(ToastText.messageToast(senderName: "Bob", groupTitle: nil, text: "https://x/y.png", isImage: true).body == "📷 Image")
        #expect(ToastText.messageToast(senderName: "Bob", groupTitle: nil, text: nil, isImage: false).body == "New message")
        #expect(ToastText.messageToast(senderName: "Bob", groupTitle: nil, text: "", isImage: false).body == "New message")
        #expect(ToastText.messageToast(senderName: "Bob", groupTitle: nil, text: "  \n", isImage: false).body == "New message")
    }

    @Test("T10 + T5: a message toast request is keyed by conversation and links to it")
    func t10MessageRequest() {
        let request = ToastRequest.message(conversation: "c9", senderName: "Dave", groupTitle: "Ops", text: "deploy done", isImage: false)
        #expect(request.title == "Ops - Dave")
        #expect(request.dedupeKey == "c9")
        #expect(request.conversation == "c9")
        #expect(request.url == "herald://conversation/c9")
        #expect(request.priority == .normal)
        #expect(request.isMessage)
    }
}
