import Testing

@Test func HeraldWebSocketTestsPlaceholder() { #expect(Bool(true)) }
