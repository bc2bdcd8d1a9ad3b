import Testing

@Test func HeraldRulesTestsPlaceholder() { #expect(Bool(true)) }
