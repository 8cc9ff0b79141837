/// The validated name of a pair of devices, used as one directory name under the home.
///
/// The rules are the message identifier's, tighter: not empty, not `.` or `..`, no `/`, no NUL,
/// no control characters, and at most ``maximumLength`` UTF-8 bytes (a pair's directory path
/// stays short). Any other text is allowed and is escaped where it is shown (`DisplayText`).
public struct PairName: Sendable, Hashable, Comparable {
  /// The longest name, in UTF-8 bytes.
  public static let maximumLength = 64

  /// The name as given.
  public let text: String

  /// The name, or ``PairNameError`` saying which rule `text` breaks.
  public init(_ text: String) throws(PairNameError) {
    if let reason = Self.problem(with: text) { throw PairNameError(name: text, reason: reason) }
    self.text = text
  }

  /// Why `text` cannot name a pair, or `nil` when it can.
  public static func problem(with text: String) -> String? {
    if text.isEmpty { return "it is empty" }
    if text == "." || text == ".." { return "it names a directory" }
    let bytes = text.utf8
    if bytes.contains(UInt8(ascii: "/")) { return "it contains '/'" }
    if bytes.contains(0) { return "it contains a NUL character" }
    if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
      return "it contains a control character"
    }
    if bytes.count > maximumLength {
      return "it is \(bytes.count) bytes long; at most \(maximumLength) are allowed"
    }
    return nil
  }

  public static func < (left: PairName, right: PairName) -> Bool {
    left.text.utf8.lexicographicallyPrecedes(right.text.utf8)
  }
}

/// A pair name that breaks a rule of ``PairName``. `name` is the raw text: show it escaped.
public struct PairNameError: Error, Sendable, Equatable {
  /// The rejected name, as given (not escaped).
  public var name: String
  /// Which rule it breaks, in words.
  public var reason: String
}
