import Testing

@Test func HeraldNetTestsPlaceholder() { #expect(Bool(true)) }
