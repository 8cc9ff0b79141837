import WormholeVocabulary

/// A bridge's answer to a ``RemoteRequest``, published on the request's `reply_to` at QoS 1:
/// `{"version":1,"id":"...","ok":true|false,"error":null|"...","seq":<journal seq>|null}`, and for
/// an applied record replay `"replayed":{"record":<seq>,"bytes":<size>,"modified_ms":<ms>}`.
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
  /// What a record replay (``RemoteRequest/Operation/replayRecord``) wrote again, from the
  /// bridge's history; `nil` for any other reply.
  public var replayed: ReplayedVersion?

  /// The version of a mailbox a bridge replayed from its own history.
  public struct ReplayedVersion: Sendable, Equatable {
    /// The journal record that wrote the version (the request's `replay_of`).
    public var record: UInt64
    /// The archive's size in bytes.
    public var byteCount: Int
    /// The version file's modification time, in milliseconds since 1970.
    public var modifiedMilliseconds: Int64

    public init(record: UInt64, byteCount: Int, modifiedMilliseconds: Int64) {
      self.record = record
      self.byteCount = byteCount
      self.modifiedMilliseconds = modifiedMilliseconds
    }
  }

  /// A reply; `error` should be given exactly when `isOK` is `false`.
  public init(
    id: String?, isOK: Bool, error: String? = nil, sequence: UInt64? = nil, replayed: ReplayedVersion? = nil
  ) {
    self.id = id
    self.isOK = isOK
    self.error = error
    self.sequence = sequence
    self.replayed = replayed
  }

  /// The reply that applied request `id`, with its journal record's `sequence` (and, for a
  /// record replay, the version it wrote again).
  public static func applied(id: String, sequence: UInt64?, replayed: ReplayedVersion? = nil) -> RemoteReply {
    RemoteReply(id: id, isOK: true, sequence: sequence, replayed: replayed)
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
      ",\"error\":\(JSONText.string(orNull: error)),\"seq\":" + (sequence.map { String($0) } ?? "null")
    if let replayed {
      out +=
        ",\"replayed\":{\"record\":\(replayed.record),\"bytes\":\(replayed.byteCount),\"modified_ms\":\(replayed.modifiedMilliseconds)}"
    }
    return Array((out + "}").utf8)
  }

  /// The reply in `payload`, checked: the version, `ok` a boolean, `error` a string exactly when
  /// `ok` is false, `seq` a non-negative integer or `null`, `replayed` absent, `null` or an
  /// object of its three integers (on an applied reply only).
  public init(payload: [UInt8]) throws(FleetProtocolError) {
    let object = try JSONObject(payload: payload, limit: Self.maximumPayloadByteCount)
    id = try object.optionalString("id")
    isOK = try object.boolean("ok")
    error = try object.optionalString("error")
    sequence = try object.optionalCount("seq").map { UInt64($0) }
    if let version = try object.optionalObject("replayed") {
      guard isOK else {
        throw .invalidField(field: "replayed", reason: "only an applied reply replayed anything")
      }
      let modified = try version.optionalInteger("modified_ms")
      guard let modified else { throw .missingField("modified_ms") }
      // A version's modification time, as a bridge keeps it (nanoseconds since 1970 in an Int64).
      // Before 1970 too: a file's time may be (`touch -d @-5`); in nanoseconds it must fit.
      guard (-(Int64.max / 1_000_000)...Int64.max / 1_000_000).contains(modified) else {
        throw .invalidField(field: "modified_ms", reason: "it is not a time from 1678 to 2262")
      }
      replayed = ReplayedVersion(
        record: UInt64(try version.count("record")), byteCount: Int(try version.count("bytes")),
        modifiedMilliseconds: modified)
    } else {
      replayed = nil
    }
    if isOK, error != nil { throw .invalidField(field: "error", reason: "it must be null when ok is true") }
    if !isOK, error?.isEmpty ?? true {
      throw .invalidField(field: "error", reason: "it must say why when ok is false")
    }
  }
}
