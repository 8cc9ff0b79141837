/// A result or error shown in the status line for a while.
public struct StatusMessage: Sendable, Hashable {
  public var text: String
  public var isError: Bool
  /// When it stops being shown (milliseconds since 1970).
  public var expires: Int64

  public init(_ text: String, isError: Bool, expires: Int64) {
    self.text = text
    self.isError = isError
    self.expires = expires
  }
}
