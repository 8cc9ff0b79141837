import Testing
@testable import KeyedArchive

@Test func placeholder() { #expect(Bool(true)) }
