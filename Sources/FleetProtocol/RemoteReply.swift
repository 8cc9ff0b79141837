import WormholeVocabulary

/// A bridge's answer to a ``RemoteRequest``, published on the request's `reply_to` at QoS 1:
/// `{"version":1,"id":"...","ok":true|false,"error":null|"...","seq":<journal seq>|null}`.
///
/// `id` is the request's (or `null` when the request was too malformed to have one); `error`
/// says why a request was refused or failed, exactly when `ok` is `false`; `seq` is the journal
/// sequence number of the record the write made on the bridge's machine, when it made one.
public struct RemoteReply: Sendable, Equatable {
  /// The most bytes a reply payload may have.
  public static let maximumPayloadByteCount = 16_384
  /// The longest error message a bridge sends; longer ones are cut.
  public static let maximumErrorByteCount = 4096

  /// The request's id, `nil` when it had none that could be read.
  public var id: String?
  /// Whether the request was applied.
  public var isOK: Bool
  /// Why not, when it was not.
  public var error: String?
  /// The journal sequence number of the write's record on the bridge's machine.
  public var sequence: UInt64?

  /// A reply; `error` should be given exactly when `isOK` is `false`.
  public init(id: String?, isOK: Bool, error: String? = nil, sequence: UInt64? = nil) {
    self.id = id
    self.isOK = isOK
    self.error = error
    self.sequence = sequence
  }

  /// The reply that applied request `id`, with its journal record's `sequence`.
  public static func applied(id: String, sequence: UInt64?) -> RemoteReply {
    RemoteReply(id: id, isOK: true, sequence: sequence)
  }

  /// The reply that refuses request `id` (or a request without a readable id) with `reason`,
  /// cut to ``maximumErrorByteCount`` bytes.
  public static func refused(id: String?, reason: String) -> RemoteReply {
    var reason = reason
    if reason.utf8.count > maximumErrorByteCount {
      var cut = ""
      for character in reason {
        guard cut.utf8.count + character.utf8.count < maximumErrorByteCount - 3 else { break }
        cut.append(character)
      }
      reason = cut + "…"
    }
    return RemoteReply(id: id, isOK: false, error: reason)
  }

  /// The payload: one line of JSON.
  public var payload: [UInt8] {
    var out = "{\"version\":\(FleetProtocol.version),\"id\":\(JSONText.string(orNull: id)),\"ok\":\(isOK)"
    out +=
      ",\"error\":\(JSONText.string(orNull: error)),\"seq\":" + (sequence.map { String($0) } ?? "null") + "}"
    return Array(out.utf8)
  }

  /// The reply in `payload`, checked: the version, `ok` a boolean, `error` a string exactly when
  /// `ok` is false, `seq` a non-negative integer or `null`.
  public init(payload: [UInt8]) throws(FleetProtocolError) {
    let object = try JSONObject(payload: payload, limit: Self.maximumPayloadByteCount)
    id = try object.optionalString("id")
    isOK = try object.boolean("ok")
    error = try object.optionalString("error")
    sequence = try object.optionalCount("seq").map { UInt64($0) }
    if isOK, error != nil { throw .invalidField(field: "error", reason: "it must be null when ok is true") }
    if !isOK, error?.isEmpty ?? true {
      throw .invalidField(field: "error", reason: "it must say why when ok is false")
    }
  }
}
