import Testing
@testable import Wormhole

@Test func placeholder() { #expect(Bool(true)) }
