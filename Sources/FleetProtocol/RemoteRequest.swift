import PropertyList
import WormholeVocabulary

/// A pass, clear, clear-all, replay or record replay that a client asks a bridge to apply on its machine,
/// published on ``BridgeTopics/requests(machine:)`` at QoS 1, not retained:
///
/// ```
/// {"version":1,"id":"<unique>","op":"pass"|"clear"|"clear-all"|"replay"|"replay-record","directory":"<path>","identifier":"...",
///  "archive_base64":"..."|null,"replay_of":<seq>|null,"transiting":"file"|"coordinated-file"|null,
///  "reply_to":"wormhole/v1/clients/<client>/replies"}
/// ```
///
/// `directory` is the directory's whole path as in the mailbox topics; a directory or identifier
/// that is not UTF-8 also carries its bytes in `directory_bytes` / `identifier_bytes` (lowercase
/// hex, as `dump --json` writes them; `null` otherwise), which then win. A clear-all names no
/// identifier (absent or `null`): it removes every mailbox of the directory. `archive_base64` is the
/// archive to write: optional for `pass` (absent, a notification only), required for `replay`,
/// refused for `clear`, `clear-all` and `replay-record`. `replay_of` (the journal record the archive came from)
/// is for `replay`, and required for `replay-record` (the record whose version the bridge writes
/// again from its own history). Unknown fields are ignored; every known one is checked (see
/// ``init(payload:)``).
public struct RemoteRequest: Sendable, Equatable {
  /// What the request asks for.
  public enum Operation: String, Sendable, Equatable, CaseIterable {
    case pass
    case clear
    /// Every mailbox of the directory, as `clear --all`: journaled as one clear-all.
    case clearAll = "clear-all"
    case replay
    /// A replay of the journal record `replay_of` wrote, its archive taken from the bridge's own
    /// model history (the versions it keeps of each mailbox): for a client that no longer has
    /// that version. No archive travels; the bridge says what it replayed, or the nearest version
    /// it keeps.
    case replayRecord = "replay-record"
  }

  /// The largest archive a request may carry (1 MiB, what the watcher keeps of a version).
  public static let maximumArchiveByteCount = 1 << 20
  /// The most bytes a request payload may have: the largest archive in base64, and room for the
  /// other fields.
  public static let maximumPayloadByteCount = (maximumArchiveByteCount + 2) / 3 * 4 + 65_536
  /// The longest `id`, in bytes.
  public static let maximumIDByteCount = 128
  /// The longest `directory`, in bytes.
  public static let maximumDirectoryByteCount = 4096
  /// The longest `reply_to`, in bytes.
  public static let maximumReplyTopicByteCount = 1024

  /// The client's identifier for this request, echoed in the reply: 1 to 128 of `A-Z a-z 0-9 - . _ : ~`.
  public var id: String
  public var operation: Operation
  /// The wormhole directory, its whole path (absolute).
  public var directory: FileName
  /// The mailbox's identifier, valid as a local one; `nil` exactly for a clear-all.
  public var identifier: FileName?
  /// The archive to write (pass, replay); `nil` for a clear or a notification-only pass.
  public var archive: [UInt8]?
  /// The journal sequence number of the record a replay repeats.
  public var replayOf: UInt64?
  /// How the bridge writes: ``TransitingType/file`` or ``TransitingType/coordinatedFile``;
  /// `nil` for the bridge's default (file).
  public var transiting: TransitingType?
  /// Where the reply goes: ``BridgeTopics/replies(client:)``.
  public var replyTo: String

  /// A request; ``payload`` writes it and ``validate()`` says whether a bridge would take it.
  public init(
    id: String, operation: Operation, directory: FileName, identifier: FileName?, archive: [UInt8]? = nil,
    replayOf: UInt64? = nil, transiting: TransitingType? = nil, replyTo: String
  ) {
    self.id = id
    self.operation = operation
    self.directory = directory
    self.identifier = identifier
    self.archive = archive
    self.replayOf = replayOf
    self.transiting = transiting
    self.replyTo = replyTo
  }

  /// The payload: one line of JSON.
  public var payload: [UInt8] {
    var out = "{\"version\":\(FleetProtocol.version),\"id\":\(JSONText.string(id))"
    out += ",\"op\":\(JSONText.string(operation.rawValue))"
    out += ",\"directory\":\(JSONText.name(directory)),\"directory_bytes\":\(JSONText.nameBytes(directory))"
    if let identifier {
      out +=
        ",\"identifier\":\(JSONText.name(identifier)),\"identifier_bytes\":\(JSONText.nameBytes(identifier))"
    } else {
      out += ",\"identifier\":null,\"identifier_bytes\":null"
    }
    out += ",\"archive_base64\":" + (archive.map { "\"\(Base64.encoded($0))\"" } ?? "null")
    out += ",\"replay_of\":" + (replayOf.map { String($0) } ?? "null")
    out += ",\"transiting\":\(JSONText.string(orNull: transiting?.rawValue))"
    out += ",\"reply_to\":\(JSONText.string(replyTo))}"
    return Array(out.utf8)
  }

  /// The request in `payload`, checked as hostile input: at most ``maximumPayloadByteCount``
  /// bytes (before parsing), the version, a known `op`, every field the operation needs with its
  /// type, and the checks of ``validate()``.
  public init(payload: [UInt8]) throws(FleetProtocolError) {
    let object = try JSONObject(payload: payload, limit: Self.maximumPayloadByteCount)
    id = try object.string("id")
    let op = try object.string("op")
    guard let operation = Operation(rawValue: op) else { throw .unknownOperation(op) }
    self.operation = operation
    let directoryText = try object.string("directory")
    directory =
      try object.optionalHexBytes("directory_bytes").map { FileName(bytes: $0) } ?? FileName(directoryText)
    if operation == .clearAll {
      guard object.isAbsent("identifier"), object.isAbsent("identifier_bytes") else {
        throw .invalidField(
          field: "identifier", reason: "a clear-all names no identifier (it clears them all)")
      }
      identifier = nil
    } else {
      let identifierText = try object.string("identifier")
      identifier =
        try object.optionalHexBytes("identifier_bytes").map { FileName(bytes: $0) }
        ?? FileName(identifierText)
    }
    if let text = try object.optionalString("archive_base64") {
      guard text.utf8.count <= (Self.maximumArchiveByteCount + 2) / 3 * 4 else {
        throw .invalidField(
          field: "archive_base64", reason: "the archive is larger than \(Self.maximumArchiveByteCount) bytes")
      }
      guard let bytes = Base64.decoded(text) else { throw .badBase64(field: "archive_base64") }
      archive = bytes
    } else {
      archive = nil
    }
    replayOf = try object.optionalCount("replay_of").map { UInt64($0) }
    if let name = try object.optionalString("transiting") {
      guard let type = TransitingType(rawValue: name) else {
        throw .invalidField(
          field: "transiting", reason: "unknown transiting type \(FleetProtocolError.excerpt(name))")
      }
      transiting = type
    } else {
      transiting = nil
    }
    replyTo = try object.string("reply_to")
    try validate()
  }

  /// Checks what a bridge checks before it looks at its disk: the id, the reply topic, an
  /// absolute directory without NUL, an identifier valid as a local one, the archive's presence
  /// and size for the operation, `replay_of` only on a replay (and always on a record replay),
  /// and a transiting type a directory
  /// alone can carry.
  public func validate() throws(FleetProtocolError) {
    guard Self.isAcceptableID(id) else {
      throw .invalidField(
        field: "id",
        reason: "1 to \(Self.maximumIDByteCount) of the characters A-Z a-z 0-9 - . _ : ~ are expected")
    }
    guard replyTo.utf8.count <= Self.maximumReplyTopicByteCount,
      BridgeTopics.client(ofReplyTopic: replyTo) != nil
    else { throw .replyTopicOutsideClients(replyTo) }
    let path = directory.bytes
    guard path.first == UInt8(ascii: "/") else {
      throw .invalidField(field: "directory", reason: "it must be an absolute path")
    }
    guard !path.contains(0) else {
      throw .invalidField(field: "directory", reason: "it contains a NUL character")
    }
    guard path.count <= Self.maximumDirectoryByteCount else {
      throw .invalidField(
        field: "directory",
        reason: "it is \(path.count) bytes long; at most \(Self.maximumDirectoryByteCount)")
    }
    if let identifier {
      if operation == .clearAll {
        throw .invalidField(
          field: "identifier", reason: "a clear-all names no identifier (it clears them all)")
      }
      if let problem = MessageIdentifier.problem(withBytes: identifier.bytes) {
        throw .invalidField(field: "identifier", reason: problem)
      }
    } else if operation != .clearAll {
      throw .missingField("identifier")
    }
    if let archive, archive.count > Self.maximumArchiveByteCount {
      throw .invalidField(
        field: "archive_base64", reason: "the archive is larger than \(Self.maximumArchiveByteCount) bytes")
    }
    switch operation {
    case .pass:
      if replayOf != nil { throw .invalidField(field: "replay_of", reason: "only a replay repeats a record") }
    case .clear, .clearAll:
      if archive != nil { throw .invalidField(field: "archive_base64", reason: "a clear carries no archive") }
      if replayOf != nil { throw .invalidField(field: "replay_of", reason: "only a replay repeats a record") }
    case .replay:
      if archive == nil { throw .missingField("archive_base64") }
    case .replayRecord:
      if archive != nil {
        throw .invalidField(
          field: "archive_base64", reason: "a record replay takes the archive from the bridge's history")
      }
      if replayOf == nil { throw .missingField("replay_of") }
    }
    if let transiting, transiting.needsPair {
      throw .invalidField(
        field: "transiting",
        reason: "\(transiting.rawValue) needs a pair; a bridge writes file or coordinated-file")
    }
  }

  /// Whether `id` is 1 to ``maximumIDByteCount`` of `A-Z a-z 0-9 - . _ : ~`.
  static func isAcceptableID(_ id: String) -> Bool {
    !id.isEmpty && id.utf8.count <= maximumIDByteCount && id.utf8.allSatisfy(isIDByte)
  }

  private static func isIDByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: ":"), UInt8(ascii: "~"):
      true
    default: false
    }
  }
}
