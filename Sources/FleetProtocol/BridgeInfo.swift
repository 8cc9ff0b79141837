import WormholeVocabulary

/// What a bridge says about itself, retained on ``BridgeTopics/bridge(machine:)``:
/// `{"version":1,"remote_writes":true|false,"reason":null|"...","mailboxes":N}`.
///
/// A bridge publishes it at each (re)connection and empties it (a retained empty payload) when
/// it exits cleanly, as it does its presence. `reason` says why remote writes are off (for
/// example `bridge started without --allow-remote-writes`); it is `null` when they are on.
/// `mailboxes` is how many mailbox topics the bridge holds retained on the broker, so a reader
/// can tell when fewer arrived (a broker's queue limit drops them without a word); a bridge
/// that predates it leaves it out.
public struct BridgeInfo: Sendable, Equatable {
  /// The most bytes a bridge info payload may have.
  public static let maximumPayloadByteCount = 4096

  /// Whether the bridge applies pass, clear and replay requests.
  public var allowsRemoteWrites: Bool
  /// Why it does not, when it does not.
  public var reason: String?
  /// How many mailboxes the bridge publishes (retained), `nil` when it does not say.
  public var mailboxCount: Int?

  /// A bridge info; `reason` should be given exactly when `allowsRemoteWrites` is `false`.
  public init(allowsRemoteWrites: Bool, reason: String? = nil, mailboxCount: Int? = nil) {
    self.allowsRemoteWrites = allowsRemoteWrites
    self.reason = reason
    self.mailboxCount = mailboxCount
  }

  /// The payload: one line of JSON.
  public var payload: [UInt8] {
    Array(
      "{\"version\":\(FleetProtocol.version),\"remote_writes\":\(allowsRemoteWrites),\"reason\":\(JSONText.string(orNull: reason))\(mailboxCount.map { ",\"mailboxes\":\($0)" } ?? "")}"
        .utf8)
  }

  /// The bridge info in `payload`, checked: the version, `remote_writes` a boolean, `reason` a
  /// string when writes are off and `null` when they are on, `mailboxes` absent, `null` or a
  /// non-negative integer.
  public init(payload: [UInt8]) throws(FleetProtocolError) {
    let object = try JSONObject(payload: payload, limit: Self.maximumPayloadByteCount)
    allowsRemoteWrites = try object.boolean("remote_writes")
    reason = try object.optionalString("reason")
    mailboxCount = try object.optionalCount("mailboxes").map { Int(clamping: $0) }
    if allowsRemoteWrites, reason != nil {
      throw .invalidField(field: "reason", reason: "it must be null when remote_writes is true")
    }
    if !allowsRemoteWrites, reason?.isEmpty ?? true {
      throw .invalidField(field: "reason", reason: "it must say why when remote_writes is false")
    }
  }
}
