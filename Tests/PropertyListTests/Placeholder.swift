import Testing
@testable import PropertyList

@Test func placeholder() { #expect(Bool(true)) }
