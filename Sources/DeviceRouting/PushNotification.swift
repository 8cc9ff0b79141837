import ArchivedValues
import WormholeVocabulary

/// A push notification's payload, checked as `xcrun simctl push` checks one: at most
/// ``maximumSize`` bytes of JSON (read by the bounded ``JSONParser``, never Foundation), an object
/// at the top level with an `aps` dictionary in it (APNs' form); the top-level key
/// `Simulator Target Bundle`, when present, must be a string and names the application meant
/// (``targetBundle``).
public struct PushNotification: Sendable, Hashable {
  /// The largest payload, in bytes: APNs' limit for a remote notification, which `simctl push`
  /// enforces too.
  public static let maximumSize = 4096
  /// The top-level key `simctl push` reads the target application's bundle identifier from.
  public static let targetBundleKey = "Simulator Target Bundle"

  /// The payload as given: what a route passes on, byte for byte.
  public let bytes: [UInt8]
  /// The top-level object's entries, in document order.
  public let entries: [ArchivedEntry]
  /// The entries of the `aps` dictionary, in document order.
  public let aps: [ArchivedEntry]
  /// The `Simulator Target Bundle` string, when the payload names one.
  public let targetBundle: String?

  /// The payload in `bytes` (UTF-8 JSON), or ``PushPayloadError`` with the reason it is refused.
  public init(json bytes: [UInt8]) throws(PushPayloadError) {
    guard bytes.count <= Self.maximumSize else {
      throw .tooLarge(size: bytes.count, limit: Self.maximumSize)
    }
    // The size is checked first, so parsing costs at most 4 KiB of work.
    let parsed = bytes.withUnsafeBufferPointer { buffer in
      Result { () throws(JSONParseError) -> ArchivedValue in try JSONParser(maximumDepth: 64).parse(buffer) }
    }
    let value: ArchivedValue
    switch parsed {
    case .success(let success): value = success
    case .failure(let failure): throw .notJSON(failure)
    }
    guard case .dictionary(let entries) = value else { throw .notAnObject(found: Self.kind(of: value)) }
    guard let aps = Self.value(forKey: "aps", in: entries) else { throw .missingAps }
    guard case .dictionary(let apsEntries) = aps else { throw .apsNotADictionary(found: Self.kind(of: aps)) }
    var target: String?
    if let bundle = Self.value(forKey: Self.targetBundleKey, in: entries) {
      guard case .string(let name) = bundle, !name.isEmpty else {
        throw .badTargetBundle(found: bundle == .string("") ? "an empty string" : Self.kind(of: bundle))
      }
      target = name
    }
    self.bytes = bytes
    self.entries = entries
    self.aps = apsEntries
    targetBundle = target
  }

  /// The payload in the UTF-8 of `text`.
  public init(json text: String) throws(PushPayloadError) { try self.init(json: Array(text.utf8)) }

  /// The string under `key` in the `aps` dictionary: what a push catcher matches (the key is
  /// `notification_id` unless the router is configured otherwise). `nil` when there is none or the
  /// value is not a string.
  public func apsString(forKey key: String) -> String? {
    guard case .string(let text)? = Self.value(forKey: key, in: aps) else { return nil }
    return text
  }

  /// The value under the string key `key` (keys are unique: the parser keeps a repeated key's last
  /// value).
  static func value(forKey key: String, in entries: [ArchivedEntry]) -> ArchivedValue? {
    entries.first { $0.key == .string(key) }?.value
  }

  /// What a value is, in words, for a refusal.
  static func kind(of value: ArchivedValue) -> String {
    switch value {
    case .dictionary: "an object"
    case .array: "an array"
    case .string: "a string"
    case .integer, .unsignedInteger, .real: "a number"
    case .boolean: "a boolean"
    case .null: "null"
    default: "another value"
    }
  }
}
