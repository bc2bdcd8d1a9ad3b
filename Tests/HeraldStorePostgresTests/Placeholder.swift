import Testing

@Test func HeraldStorePostgresTestsPlaceholder() { #expect(Bool(true)) }
