import ArchivedValues
import WormholeVocabulary

/// A send from one device of a pair to the other with one of WatchConnectivity's types
/// (`session-context`, `session-message`, `session-file`): what the pass and replay forms ask
/// for when their type is a session type. The runtime makes the archive (from the value, or the
/// kept version it names) and sends it as the sending device.
public struct SessionSend: Sendable, Hashable {
  /// The device that sends; the message goes to its counterpart.
  public struct Sender: Sendable, Hashable {
    /// The home whose pair store holds the pair.
    public var home: String
    /// The pair's name, as read from disk (shown through `DisplayText`).
    public var pair: String
    /// The sending device.
    public var role: PairSnapshot.Role
    /// The sending device's application group (its containers while the dashboard acts as it).
    public var applicationGroup: String
    /// The optional directory inside the group, if the form's mailbox was in one.
    public var optionalDirectory: String?

    public init(
      home: String, pair: String, role: PairSnapshot.Role, applicationGroup: String,
      optionalDirectory: String? = nil
    ) {
      self.home = home
      self.pair = pair
      self.role = role
      self.applicationGroup = applicationGroup
      self.optionalDirectory = optionalDirectory
    }

    /// The device that receives.
    public var receiver: PairSnapshot.Role { role == .phone ? .watch : .phone }

    /// "the phone to the watch of desk", names escaped.
    public var direction: String {
      "the \(role.rawValue) to the \(receiver.rawValue) of \(DisplayText.field(pair))"
    }
  }

  /// What is sent: always a message (the session types carry one).
  public enum Content: Sendable, Hashable {
    /// A value typed into the pass form.
    case value(ArchivedValue)
    /// A kept version of a mailbox (replayed).
    case version(directory: FileName, identifier: FileName, serial: UInt64)
    /// The message a traffic entry passed (replayed).
    case entry(UInt64)
  }

  public var sender: Sender
  /// One of the three session types.
  public var transiting: TransitingType
  /// The message identifier it is sent with.
  public var identifier: String
  public var content: Content
  /// session-message: how long to wait for the counterpart's reply, `nil` for no reply.
  public var replyTimeout: Double?
  /// session-context: deliver a context identical to the current one anyway.
  public var deliversIdentical: Bool

  public init(
    sender: Sender, transiting: TransitingType, identifier: String, content: Content,
    replyTimeout: Double? = nil, deliversIdentical: Bool = false
  ) {
    self.sender = sender
    self.transiting = transiting
    self.identifier = identifier
    self.content = content
    self.replyTimeout = transiting == .sessionMessage ? replyTimeout : nil
    self.deliversIdentical = transiting == .sessionContext && deliversIdentical
  }

  /// Whether it replays something kept (a version or a traffic entry) rather than a typed value.
  public var isReplay: Bool {
    if case .value = content { return false }
    return true
  }

  /// What the message log says when it went: "passed "button" (session-message, phone → watch
  /// of desk)"; the runtime's detail follows (delivered, queued, the reply).
  var doneText: String {
    (isReplay ? "replayed \(contentDescription) as " : "passed ")
      + "\(DisplayText.field(identifier)) (\(transiting), \(sender.role.rawValue) → \(sender.receiver.rawValue) of \(DisplayText.field(sender.pair)))"
  }

  /// What is sent, in a few words: "a kept version of "button"", "traffic entry 12", "a value".
  var contentDescription: String {
    switch content {
    case .value: return "a value"
    case .version(_, let identifier, _): return "a kept version of \(identifier.displayField)"
    case .entry(let id): return "traffic entry \(id)"
    }
  }
}

extension TransitingType {
  /// Whether the type travels between a pair's devices (WatchConnectivity's three).
  var isSession: Bool { self == .sessionContext || self == .sessionMessage || self == .sessionFile }
}
