import Testing

@Test func HeraldStoreTestsPlaceholder() { #expect(Bool(true)) }
