import WormholeVocabulary

/// Why a push notification's payload is refused, as `xcrun simctl push` would refuse it.
public enum PushPayloadError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The payload is larger than ``PushNotification/maximumSize``.
  case tooLarge(size: Int, limit: Int)
  /// The payload is not JSON.
  case notJSON(JSONParseError)
  /// The payload is JSON, but not an object at the top level.
  case notAnObject(found: String)
  /// The top-level object has no `aps` key.
  case missingAps
  /// `aps` is not a dictionary.
  case apsNotADictionary(found: String)
  /// `Simulator Target Bundle` is not a non-empty string.
  case badTargetBundle(found: String)

  public var description: String {
    switch self {
    case .tooLarge(let size, let limit):
      "the payload is \(size) bytes; a push notification holds at most \(limit)"
    case .notJSON(let error): "the payload is \(error)"
    case .notAnObject(let found): "the payload must be a JSON object, not \(found)"
    case .missingAps: "the payload has no \"aps\" dictionary at the top level (APNs' form: {\"aps\": {…}})"
    case .apsNotADictionary(let found): "\"aps\" must be a dictionary, not \(found)"
    case .badTargetBundle(let found):
      "\"\(PushNotification.targetBundleKey)\" must be a bundle identifier (a non-empty string), not \(found)"
    }
  }
}
