import WormholeVocabulary

/// Why a payload from the broker is not a valid bridge info, request or reply. Everything that
/// arrives from the broker is hostile: each check says what was wrong, quoting at most a short,
/// escaped excerpt of what arrived, so a message is safe on a terminal and in JSON.
public enum FleetProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The payload has more bytes than the limit of its kind; it was not parsed.
  case payloadTooLarge(byteCount: Int, limit: Int)
  /// The payload is not UTF-8 JSON; the parser's reason.
  case notJSON(reason: String)
  /// The payload is JSON but not an object.
  case notAnObject
  /// `version` is not one this side speaks (``FleetProtocol/version``); what was found.
  case unsupportedVersion(found: String)
  /// A field the message must have is absent.
  case missingField(String)
  /// A field has the wrong JSON type.
  case wrongType(field: String, expected: String)
  /// `op` names no operation (`pass`, `clear`, `clear-all`, `replay`, `replay-record`).
  case unknownOperation(String)
  /// A field has the right type and an unacceptable value; why.
  case invalidField(field: String, reason: String)
  /// `field` is not standard, padded base64.
  case badBase64(field: String)
  /// `reply_to` is not `wormhole/v1/clients/CLIENT/replies`.
  case replyTopicOutsideClients(String)

  public var description: String {
    switch self {
    case .payloadTooLarge(let byteCount, let limit):
      "the payload is \(byteCount) bytes; at most \(limit) are accepted"
    case .notJSON(let reason): "the payload is not JSON: \(reason)"
    case .notAnObject: "the payload is not a JSON object"
    case .unsupportedVersion(let found):
      "unsupported version \(Self.excerpt(found)) (this side speaks version \(FleetProtocol.version))"
    case .missingField(let field): "the field \"\(field)\" is missing"
    case .wrongType(let field, let expected): "the field \"\(field)\" must be \(expected)"
    case .unknownOperation(let operation):
      "unknown op \(Self.excerpt(operation)) (pass, clear, clear-all, replay or replay-record)"
    case .invalidField(let field, let reason): "the field \"\(field)\" is not acceptable: \(reason)"
    case .badBase64(let field): "the field \"\(field)\" is not valid base64 (standard alphabet, padded)"
    case .replyTopicOutsideClients(let topic):
      "reply_to \(Self.excerpt(topic)) is not \(BridgeTopics.clientsRoot)/CLIENT/replies"
    }
  }

  /// At most 64 characters of hostile `text`, as an escaped JSON string literal.
  static func excerpt(_ text: String) -> String {
    let limit = 64
    guard text.count > limit else { return JSONText.string(text) }
    return JSONText.string(String(text.prefix(limit))) + "…"
  }
}
