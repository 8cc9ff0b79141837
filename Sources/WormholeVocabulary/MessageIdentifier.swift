/// The rules a message identifier must follow to name a mailbox file.
public enum MessageIdentifier {
  /// The suffix of every mailbox file name.
  public static let fileExtension = ".archive"

  /// The longest identifier in UTF-8 bytes: the mailbox name must fit a 255-byte file name.
  public static let maximumLength = 255 - fileExtension.utf8.count

  /// Why `identifier` cannot name a mailbox, or `nil` when it can: it must not be empty, `.` or
  /// `..`, hold `/` or NUL, or be longer than ``maximumLength`` UTF-8 bytes.
  public static func problem(with identifier: String) -> String? {
    if identifier.isEmpty { return "it is empty" }
    if identifier == "." || identifier == ".." { return "it names a directory" }
    if identifier.utf8.contains(UInt8(ascii: "/")) { return "it contains '/'" }
    if identifier.utf8.contains(0) { return "it contains a NUL character" }
    let length = identifier.utf8.count
    if length > maximumLength {
      return "it is \(length) bytes long; at most \(maximumLength) fit in a file name"
    }
    return nil
  }

  /// The mailbox file name for a valid identifier.
  public static func fileName(for identifier: String) -> String { identifier + fileExtension }

  /// The identifier a mailbox file name stands for, or `nil` for any other file name. The
  /// suffix is matched by bytes (see ``identifier(fromFileName:)-(FileName)``).
  public static func identifier(fromFileName name: String) -> String? {
    identifier(fromFileName: FileName(name))?.string
  }

  /// The mailbox file name for a valid identifier, as bytes.
  public static func fileName(for identifier: FileName) -> FileName {
    FileName(bytes: identifier.bytes + Array(fileExtension.utf8))
  }

  /// The identifier a mailbox file name stands for, as bytes (valid UTF-8 or not), or `nil` for
  /// any other file name. The suffix is matched by bytes, so `x\u{600}.archive` (a prepend
  /// character before the dot, one grapheme with it) is a mailbox too.
  public static func identifier(fromFileName name: FileName) -> FileName? {
    guard name.hasSuffix(fileExtension) else { return nil }
    let identifier = name.droppingLast(fileExtension.utf8.count)
    return problem(withBytes: identifier.bytes) == nil ? identifier : nil
  }

  /// ``problem(with:)`` for an identifier given as bytes.
  package static func problem(withBytes bytes: [UInt8]) -> String? {
    if bytes.isEmpty { return "it is empty" }
    if bytes == [UInt8(ascii: ".")] || bytes == [UInt8(ascii: "."), UInt8(ascii: ".")] {
      return "it names a directory"
    }
    if bytes.contains(UInt8(ascii: "/")) { return "it contains '/'" }
    if bytes.contains(0) { return "it contains a NUL character" }
    if bytes.count > maximumLength {
      return "it is \(bytes.count) bytes long; at most \(maximumLength) fit in a file name"
    }
    return nil
  }
}
