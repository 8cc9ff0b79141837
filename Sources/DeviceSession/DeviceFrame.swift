/// One unit of traffic between the two devices of a pair, as a link carries it.
///
/// The same frame travels over every link implementation (a local Unix socket today, a broker
/// later), so it holds everything the receiving session needs and nothing about the machine.
public struct DeviceFrame: Sendable, Equatable {
  /// What the frame carries.
  public enum Kind: UInt8, Sendable, CaseIterable {
    /// The sender's whole application context (`sequence` is its version).
    case context = 1
    /// A live message (`sequence` numbers it within the sender's session).
    case message = 2
    /// The reply to the message whose `sequence` it repeats.
    case reply = 3
    /// A queued file transfer (`transferID` names it).
    case transfer = 4
    /// The receiver has stored the transfer `transferID`; the sender may forget it.
    case transferAcknowledgement = 5
    /// The receiver has stored the context version `sequence`.
    case contextAcknowledgement = 6
    /// A push notification for the device to route (its payload the notification's JSON, at most
    /// 4096 bytes): sent to a running device's control socket now, and to `<pair>/<role>` by a
    /// broker link later; a session does not take it from its counterpart.
    case push = 7
    /// A deep link for the device to route (its payload the URL's UTF-8), as ``push``.
    case deepLink = 8
  }

  /// Flags in a frame.
  public struct Flags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// A message whose sender waits for a reply.
    public static let replyRequested = Flags(rawValue: 1)
    /// A context to deliver even when it equals the one received before.
    public static let deliversIdentical = Flags(rawValue: 2)
  }

  public var kind: Kind
  /// The message identifier (the mailbox name); empty where the kind has none.
  public var identifier: String
  public var transferID: UInt64
  public var sequence: UInt64
  public var sender: DeviceRole
  /// When the sender made the frame, in nanoseconds since 1970 (the sender's clock).
  public var time: Int64
  public var flags: Flags
  /// The archive bytes (for a context, its encoded dictionary).
  public var payload: [UInt8]

  public init(
    kind: Kind, identifier: String = "", transferID: UInt64 = 0, sequence: UInt64 = 0, sender: DeviceRole,
    time: Int64, flags: Flags = [], payload: [UInt8] = []
  ) {
    self.kind = kind
    self.identifier = identifier
    self.transferID = transferID
    self.sequence = sequence
    self.sender = sender
    self.time = time
    self.flags = flags
    self.payload = payload
  }
}
