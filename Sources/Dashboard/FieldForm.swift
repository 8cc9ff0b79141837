import TerminalInput

/// A form of fields that take the focus in Tab order, and whose Enter sends it: the pass, the
/// replay and the route form. Tab and Down move the focus to the next shown field, Shift-Tab and
/// Up to the previous one, wrapping around.
protocol FieldForm {
  associatedtype Field: Equatable
  /// The fields shown now, in Tab order.
  var fields: [Field] { get }
  var focus: Field { get set }
  /// The effect the form asks for as it stands, or `nil` when a problem stops it.
  var effect: DashboardEffect? { get }
  /// Applies a key: the effect when Enter sends a valid form, and whether the form is done.
  mutating func handle(_ key: Key) -> (effect: DashboardEffect?, done: Bool)
  /// Pastes into the focused text field; returns `false` when no text field has the focus.
  mutating func paste(_ text: String) throws(TextField.PasteError) -> Bool
  /// The fields a paste goes into, for the message when one is ignored (`the identifier`).
  static var pasteFields: String { get }
  /// Checks now what typing changed and the form has not checked yet (a large value).
  mutating func checkIfPending()
}

extension FieldForm {
  /// Tab, Shift-Tab, Down and Up move the focus; Enter checks what typing left unchecked
  /// (``checkIfPending()``) and sends the form, unless a problem stops it. `nil` for every other
  /// key: the form's own.
  mutating func navigate(_ key: Key) -> (effect: DashboardEffect?, done: Bool)? {
    let step: Int
    switch key {
    case .tab, .down: step = 1
    case .backTab, .up: step = -1
    case .enter:
      checkIfPending()
      guard let effect else { return (nil, false) }
      return (effect, true)
    default: return nil
    }
    let fields = fields
    guard !fields.isEmpty else { return (nil, false) }
    let position = fields.firstIndex(of: focus) ?? 0
    focus = fields[(position + step + fields.count) % fields.count]
    return (nil, false)
  }

  /// Nothing is left unchecked while typing, unless the form says otherwise.
  mutating func checkIfPending() {}
}
