import ArchivedValues
import WormholeVocabulary

/// Reading the members of a JSON object from the broker: every member is optional and checked
/// for its type; nothing here trusts the publisher. An object that names a key twice, at any
/// depth, is refused (a filter that reads the first would see another payload than this does).
struct FleetJSON {
  let entries: [ArchivedEntry]

  /// The object `text` holds, or `nil` when it is not one JSON object (at most 16 levels deep,
  /// no key twice).
  init?(_ text: String) {
    guard case .success(let object) = Self.parse(text) else { return nil }
    self = object
  }

  /// The object `text` holds, or why it is not one: the parser's reason (escaped), or that it
  /// is another JSON value.
  static func parse(_ text: String) -> Result<FleetJSON, RemoteMailboxPayload.Problem> {
    do throws(JSONParseError) {
      guard
        case .dictionary(let entries) = try JSONParser(maximumDepth: 16, refusesDuplicateKeys: true).parse(
          text)
      else { return .failure(.init(reason: "a payload that is not a JSON object")) }
      return .success(FleetJSON(entries: entries))
    } catch {
      return .failure(
        .init(reason: "a payload that is not the bridge's JSON: " + DisplayText.escaped(error.description)))
    }
  }

  init(entries: [ArchivedEntry]) { self.entries = entries }

  func value(_ key: String) -> ArchivedValue? { entries.first { $0.key == .string(key) }?.value }

  func string(_ key: String) -> String? {
    if case .string(let text)? = value(key) { return text }
    return nil
  }

  /// The string in `key`, cut to at most ``FleetState/textByteLimit`` UTF-8 bytes on a scalar
  /// boundary (`…` added) when it is longer: for texts that reach the screen but no byte budget.
  func text(_ key: String) -> String? {
    guard let text = string(key) else { return nil }
    guard text.utf8.count > FleetState.textByteLimit else { return text }
    var kept = String.UnicodeScalarView()
    var bytes = 0
    for scalar in text.unicodeScalars {
      bytes += UTF8.width(scalar)
      guard bytes <= FleetState.textByteLimit else { break }
      kept.append(scalar)
    }
    return String(kept) + "…"
  }

  func integer(_ key: String) -> Int64? {
    switch value(key) {
    case .integer(let number)?: return number
    case .unsignedInteger(let number)?: return Int64(exactly: number)
    default: return nil
    }
  }

  func boolean(_ key: String) -> Bool? {
    if case .boolean(let flag)? = value(key) { return flag }
    return nil
  }

  func object(_ key: String) -> FleetJSON? {
    if case .dictionary(let entries)? = value(key) { return FleetJSON(entries: entries) }
    return nil
  }

  /// A name written as dump writes it: `key` its text, `key_bytes` its exact bytes in hex when
  /// they are not UTF-8. `nil` when absent, empty or malformed.
  func name(_ key: String) -> FileName? {
    if case .string(let hex)? = value(key + "_bytes") {
      guard let bytes = JSONText.bytes(hex: hex), !bytes.isEmpty else { return nil }
      return FileName(bytes: bytes)
    }
    guard let text = string(key), !text.isEmpty else { return nil }
    return FileName(text)
  }
}
