import Testing

@Test func HeraldDeflateTestsPlaceholder() { #expect(Bool(true)) }
