import DeviceSession

/// One send with a session type, as ``PairOperations/send(_:)`` takes it: the archive is made,
/// the names are checked.
public struct PairSendRequest: Sendable, Equatable {
  /// What the type does with the archive, and its option.
  public enum Kind: Sendable, Equatable {
    /// session-message: live; with a timeout, the reply is waited for.
    case message(replyTimeout: Double?)
    /// session-context: merged into the sender's application context, latest wins.
    case context(deliveringIdentical: Bool)
    /// session-file: a queued transfer.
    case file
  }

  /// The home whose pair store holds the pair.
  public var home: String
  /// The sending device.
  public var sender: DeviceAddress
  /// The sender's application group and optional directory, when the operation acts as it.
  public var applicationGroup: String
  public var optionalDirectory: String?
  public var identifier: String
  public var archive: [UInt8]
  public var kind: Kind

  public init(
    home: String, sender: DeviceAddress, applicationGroup: String, optionalDirectory: String? = nil,
    identifier: String, archive: [UInt8], kind: Kind
  ) {
    self.home = home
    self.sender = sender
    self.applicationGroup = applicationGroup
    self.optionalDirectory = optionalDirectory
    self.identifier = identifier
    self.archive = archive
    self.kind = kind
  }
}
