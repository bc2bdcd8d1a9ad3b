import Testing

@Test func HeraldServerTestsPlaceholder() { #expect(Bool(true)) }
