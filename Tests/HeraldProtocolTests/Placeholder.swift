import Testing

@Test func HeraldProtocolTestsPlaceholder() { #expect(Bool(true)) }
