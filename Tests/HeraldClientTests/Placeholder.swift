import Testing

@Test func HeraldClientTestsPlaceholder() { #expect(Bool(true)) }
