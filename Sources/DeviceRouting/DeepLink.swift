/// A URL opened on a device, as `xcrun simctl openurl` opens one: checked to be a URL with a
/// scheme, then matched by the router on its whole string.
public struct DeepLink: Sendable, Hashable, CustomStringConvertible {
  /// The URL as given.
  public let url: String

  /// The longest URL sent to a device, in bytes of UTF-8 (64 KiB): what a frame to a running
  /// device may carry. Longer URLs are refused before they are sent.
  public static let maximumWireBytes = 65536

  /// The URL `text`, or ``DeepLinkError`` saying which rule it breaks: it must not be empty, must
  /// start with a scheme (`myapp:`: a letter, then letters, digits, `+`, `-` or `.`, then `:`, as
  /// RFC 3986 spells it), and may hold no spaces or control characters (a URL writes them as
  /// `%20` and the like).
  public init(_ text: String) throws(DeepLinkError) {
    if let reason = Self.problem(with: text) { throw DeepLinkError(url: text, reason: reason) }
    url = text
  }

  /// The URL's scheme, without the colon (`myapp` of `myapp://item/1`).
  public var scheme: Substring { url.prefix { $0 != ":" } }

  public var description: String { url }

  /// Why `text` is not a URL a device opens, or `nil` when it is.
  public static func problem(with text: String) -> String? {
    guard let first = text.unicodeScalars.first else { return "it is empty" }
    let isControl = { (scalar: Unicode.Scalar) in scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
    if let bad = text.unicodeScalars.first(where: { $0.properties.isWhitespace || isControl($0) }) {
      let what = isControl(bad) ? "a control character" : "white space"
      let code = String(bad.value, radix: 16, uppercase: true)
      return "it contains \(what) (U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)); "
        + "write it percent-encoded"
    }
    guard text.unicodeScalars.contains(":") else { return "it has no scheme (no ':', as in myapp://…)" }
    guard isLetter(first) else {
      return "it does not start with a scheme (a letter first, as in myapp://…)"
    }
    for scalar in text.unicodeScalars.dropFirst() {
      if scalar == ":" { return nil }
      let allowed =
        isLetter(scalar) || ("0"..."9").contains(scalar) || scalar == "+" || scalar == "-" || scalar == "."
      if !allowed { return "it does not start with a scheme (letters, digits, +, - or . and then ':')" }
    }
    return nil
  }

  private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
  }
}

/// A text that is not a URL a device opens. `url` is the raw text: show it escaped.
public struct DeepLinkError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The text as given (not escaped).
  public var url: String
  /// Which rule it breaks, in words.
  public var reason: String

  public var description: String { "not a URL to open: \(reason)" }
}
