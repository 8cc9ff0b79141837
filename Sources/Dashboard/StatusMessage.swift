/// A result or error shown in the status line for a while.
public struct StatusMessage: Sendable, Hashable {
  /// The longest text a message keeps, in Unicode scalars: enough for any reason an operation
  /// gives, while a message quoting a pasted megabyte costs no more than this to draw or log.
  public static let maximumLength = 2_000

  public var text: String
  public var isError: Bool
  /// When it stops being shown (milliseconds since 1970).
  public var expires: Int64

  public init(_ text: String, isError: Bool, expires: Int64) {
    self.text = Self.bounded(text)
    self.isError = isError
    self.expires = expires
  }

  /// `text`, or its start and how much was left out when it is longer than ``maximumLength``.
  public static func bounded(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard let end = scalars.index(scalars.startIndex, offsetBy: maximumLength, limitedBy: scalars.endIndex),
      end < scalars.endIndex
    else { return text }
    let kept = String(scalars[..<end])
    return kept + "… (\(text.utf8.count - kept.utf8.count) more bytes)"
  }
}
