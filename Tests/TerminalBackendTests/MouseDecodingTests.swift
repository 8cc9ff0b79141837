import TerminalInput
import Testing

@testable import TerminalBackend

@Suite struct MouseDecodingTests {
  let decoding = MouseDecoding.version2

  @Test func pressesAndTheWheel() {
    #expect(decoding.event(state: 0o2, x: 4, y: 2) == MouseEvent(row: 2, column: 4, kind: .press(.left)))
    #expect(decoding.event(state: 0o100, x: 0, y: 0)?.kind == .press(.middle))
    #expect(decoding.event(state: 0o4000, x: 0, y: 0)?.kind == .press(.right))
    #expect(decoding.event(state: 0o200000, x: 1, y: 1)?.kind == .wheelUp)
    #expect(decoding.event(state: 0o10000000, x: 1, y: 1)?.kind == .wheelDown)
  }

  @Test func releasesAndOffScreenPositionsAreDropped() {
    #expect(decoding.event(state: 0o1, x: 4, y: 2) == nil)  // BUTTON1_RELEASED
    #expect(decoding.event(state: 0o2, x: -1, y: 2) == nil)
  }

  @Test func theShimAgreesWithProtocolVersion2() {
    #expect(Terminal.mouseDecoding == decoding)
  }
}
