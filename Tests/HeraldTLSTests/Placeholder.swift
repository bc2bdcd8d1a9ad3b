import Testing

@Test func HeraldTLSTestsPlaceholder() { #expect(Bool(true)) }
