import TerminalInput

/// ncurses mouse event bits to ``MouseEvent`` values: a pure mapping.
struct MouseDecoding: Sendable, Hashable {
  /// The `BUTTON1_PRESSED` ... `BUTTON5_PRESSED` bits of this ncurses build.
  var leftPressed: UInt
  var middlePressed: UInt
  var rightPressed: UInt
  var wheelUp: UInt
  var wheelDown: UInt

  /// The bits of ncurses' mouse protocol version 2 (the Debian build).
  static let version2 = MouseDecoding(
    leftPressed: 0o2, middlePressed: 0o100, rightPressed: 0o4000, wheelUp: 0o200000,
    wheelDown: 0o10000000)

  /// Every bit the backend asks ncurses to report.
  var mask: UInt { leftPressed | middlePressed | rightPressed | wheelUp | wheelDown }

  /// The event for `state` at column `x`, row `y`, or nil for one not to report (releases,
  /// motion, negative positions).
  func event(state: UInt, x: Int, y: Int) -> MouseEvent? {
    guard x >= 0, y >= 0 else { return nil }
    let kind: MouseEvent.Kind
    if state & wheelUp != 0 {
      kind = .wheelUp
    } else if wheelDown != 0 && state & wheelDown != 0 {
      kind = .wheelDown
    } else if state & leftPressed != 0 {
      kind = .press(.left)
    } else if state & middlePressed != 0 {
      kind = .press(.middle)
    } else if state & rightPressed != 0 {
      kind = .press(.right)
    } else {
      return nil
    }
    return MouseEvent(row: y, column: x, kind: kind)
  }
}
