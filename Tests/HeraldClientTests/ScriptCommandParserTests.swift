import HeraldClient
import HeraldProtocol
import HeraldRules
import Testing

@Suite("Script command parser (client-script.md Input)")
struct ScriptCommandParserTests {
    func parse(_ line: String) -> ClientCommand? {
        guard case .success(let command)? = ScriptCommandParser.parse(line) else { return nil }
        return command
    }

    func error(_ line: String) -> ScriptCommandError? {
        guard case .failure(let error)? = ScriptCommandParser.parse(line) else { return nil }
        return error
    }

    @Test("every command of the contract parses", arguments: [
        ("state", ClientCommand.state),
        ("dm bob", .dm(user: "bob")),
        ("group \"Team A\" bob carol", .group(title: "Team A", members: ["bob", "carol"])),
        ("group Solo bob", .group(title: "Solo", members: ["bob"])),
        ("send c1 hello   there  world", .send(conversation: "c1", text: "hello   there  world")),
        ("send-image c1 https://example.org/cat.png", .sendImage(conversation: "c1", url: "https://example.org/cat.png")),
        ("open list", .open(.list)),
        ("open thread c7", .open(.thread("c7"))),
        ("open tab settings", .open(.tab("settings"))),
        ("open notifications", .open(.notifications)),
        ("background", .background),
        ("foreground", .foreground),
        ("scroll up 3", .scroll(.up(3))),
        ("scroll down 2", .scroll(.down(2))),
        ("scroll bottom", .scroll(.bottom)),
        ("toast tap", .toastTap),
        ("toast swipe", .toastSwipe),
        ("toast action", .toastAction),
        ("toast show success critical Saved it", .toastShow(kind: .success, priority: .critical, key: nil, text: "Saved it")),
        ("toast show warning elevated --key k1 Disk  full", .toastShow(kind: .warning, priority: .elevated, key: "k1", text: "Disk  full")),
        ("push tap", .pushTap(index: nil)),
        ("push tap 2", .pushTap(index: 2)),
        ("open-url herald://conversation/c1", .openURL("herald://conversation/c1")),
        ("follow bob", .follow(user: "bob")),
        ("react m4 👍", .react(message: "m4", emoji: "👍")),
        ("bell read n3", .bellRead(notification: "n3")),
        ("bell read-all", .bellReadAll),
        ("sleep 250", .sleep(milliseconds: 250)),
        ("quit", .quit),
        ("users", .users(prefix: nil)),
        ("users bo", .users(prefix: "bo")),
        ("users \"Zed D\"", .users(prefix: "Zed D")),
        ("users \"\"", .users(prefix: nil)),
        ("members c3", .members(conversation: "c3")),
    ])
    func parses(_ line: String, _ expected: ClientCommand) {
        #expect(parse(line) == expected)
    }

    @Test("the answer's cmd is the command's first word")
    func names() {
        #expect(parse("send-image c1 u")?.name == "send-image")
        #expect(parse("toast tap")?.name == "toast")
        #expect(parse("bell read-all")?.name == "bell")
        #expect(parse("open-url herald://messages")?.name == "open-url")
        #expect(parse("users")?.name == "users")
        #expect(parse("members c1")?.name == "members")
    }

    @Test("blank lines and comments are not commands")
    func blank() {
        #expect(ScriptCommandParser.parse("   ") == nil)
        #expect(ScriptCommandParser.parse("# note") == nil)
    }

    @Test("unknown commands and bad arguments are errors naming the command", arguments: [
        ("fly away", "fly", "unknown_command"),
        ("dm", "dm", "bad_arguments"),
        ("send c1", "send", "bad_arguments"),
        ("scroll up many", "scroll", "bad_arguments"),
        ("toast show loud normal hi", "toast", "bad_arguments"),
        ("toast show info urgent hi", "toast", "bad_arguments"),
        ("group \"Team A bob", "group", "bad_arguments"),
        ("sleep -5", "sleep", "bad_arguments"),
        ("open thread", "open", "bad_arguments"),
        ("users bo b", "users", "bad_arguments"),
        ("members", "members", "bad_arguments"),
        ("members c1 c2", "members", "bad_arguments"),
        ("members \"\"", "members", "bad_arguments"),
    ])
    func errors(_ line: String, _ command: String, _ code: String) {
        let failure = error(line)
        #expect(failure?.command == command)
        #expect(failure?.code == code)
    }
}

@Suite("JSON output lines")
struct JSONValueTests {
    @Test("objects keep key order and strings are escaped onto one line")
    func encoding() {
        let value: JSONValue = .object(["type": "event", "text": "a \"b\"\nc\\", "n": 3, "ok": true, "none": nil, "list": ["x"]])
        #expect(value.text == #"{"type":"event","text":"a \"b\"\nc\\","n":3,"ok":true,"none":null,"list":["x"]}"#)
        #expect(JSONValue.string("\u{01}é").text == "\"\\u0001é\"")
    }
}

@Suite("Flags helpers")
struct FlagHelperTests {
    @Test("server URLs: ws and wss, default path /sync, ports")
    func addresses() throws {
        let plain = try ServerAddress.parse("ws://127.0.0.1:8080").get()
        #expect(plain == ServerAddress(secure: false, host: "127.0.0.1", port: 8080, path: "/sync"))
        #expect(plain.hostHeader == "127.0.0.1:8080")
        let secure = try ServerAddress.parse("wss://example.org/custom").get()
        #expect(secure.port == 443 && secure.secure && secure.path == "/custom" && secure.hostHeader == "example.org")
        #expect((try? ServerAddress.parse("http://x").get()) == nil)
        #expect((try? ServerAddress.parse("ws://host:99999").get()) == nil)
        #expect((try? ServerAddress.parse("ws://:80").get()) == nil)
    }

    @Test("the user comes from the token's sub claim")
    func tokenSubject() {
        // {"sub":"alice","name":"Alice"}
        #expect(TokenSubject.user(in: "x.eyJzdWIiOiJhbGljZSIsIm5hbWUiOiJBbGljZSJ9.y") == "alice")
        #expect(TokenSubject.user(in: "not-a-token") == nil)
        #expect(TokenSubject.user(in: "x.!!!.y") == nil)
    }
}
