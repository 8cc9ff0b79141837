import ArchivedValues
import TerminalInput
import WormholeVocabulary

/// The part of the pass and replay forms that a session type needs: which pair, which of its
/// devices sends (the other receives), and the type's option (a reply timeout for
/// session-message, "deliver identical" for session-context).
///
/// The defaults come from the selection: a mailbox in a device's group directory
/// (`<home>/pairs/<pair>/<role>/AppGroup/<group>/...`) sends from that device, in that group; a
/// device row sends from that device, a pair row from its phone. The operator switches the pair
/// (among those the dashboard knows) and the role with ←/→.
public struct SessionFields: Sendable {
  /// A pair the form can send through.
  public struct PairChoice: Sendable, Hashable {
    public var name: String
    public var home: String

    public init(name: String, home: String) {
      self.name = name
      self.home = home
    }
  }

  /// The pairs offered, by name.
  public private(set) var pairs: [PairChoice]
  public private(set) var pairIndex = 0
  /// The sending device.
  public var role: PairSnapshot.Role
  /// session-message: seconds to wait for a reply; empty waits for none.
  public private(set) var replyTimeout = TextField()
  /// Why the reply timeout cannot be used, or `nil`: checked when it changes.
  public private(set) var replyTimeoutProblem: String?
  /// session-context: deliver a context identical to the current one anyway.
  public var deliversIdentical = false

  /// The group a device's mailboxes are in when nothing on screen names one.
  public static let defaultApplicationGroup = "default"
  /// The longest reply timeout the form takes, in seconds.
  public static let maximumReplyTimeout = 3600.0

  /// Defaults for a form opened on `selection` (or on a mailbox of `directory`), among `pairs`;
  /// `directories` are the tree's, where a device's group is looked up.
  public init(
    pairs snapshots: [PairSnapshot], selection: TreeNodeID?, directory: FileName?, directories: [FileName]
  ) {
    var choices = snapshots.map { PairChoice(name: $0.name, home: $0.home) }
    places = directories.compactMap(DevicePlace.init)
    var role = PairSnapshot.Role.phone
    var chosen: String?
    if let directory, let place = DevicePlace(directory) {
      chosen = place.pair
      role = place.role
      self.place = place
      if !choices.contains(where: { $0.name == place.pair }) {
        choices.append(PairChoice(name: place.pair, home: place.home))
      }
    } else {
      switch selection {
      case .device(let pair, let selected)?:
        chosen = pair
        role = selected
      case .pair(let pair)?:
        chosen = pair
      default: break
      }
    }
    choices.sort { $0.name < $1.name }
    self.pairs = choices
    self.role = role
    pairIndex = chosen.flatMap { name in choices.firstIndex { $0.name == name } } ?? 0
  }

  /// The directory the form was opened on, when it lies in a device's group.
  private var place: DevicePlace?
  /// The devices' group directories among the tree's.
  private let places: [DevicePlace]

  /// The sender's application group: the form's directory's when it sends from that device,
  /// else the group of a directory of the sender on screen, else of its counterpart, else
  /// `default`.
  public var applicationGroup: String {
    if let place, place.pair == pair?.name, place.role == role { return place.applicationGroup }
    let mine = places.filter { $0.pair == pair?.name }
    return (mine.first { $0.role == role } ?? mine.first)?.applicationGroup ?? Self.defaultApplicationGroup
  }

  /// The optional directory inside the group, when the form's directory is the sender's.
  public var optionalDirectory: String? {
    guard let place, place.pair == pair?.name, place.role == role else { return nil }
    return place.optionalDirectory
  }

  /// The chosen pair, or `nil` when the dashboard knows none.
  public var pair: PairChoice? { pairs.indices.contains(pairIndex) ? pairs[pairIndex] : nil }

  /// The device that receives.
  public var receiver: PairSnapshot.Role { role == .phone ? .watch : .phone }

  /// The sender, or `nil` without a pair.
  public var sender: SessionSend.Sender? {
    guard let pair else { return nil }
    return SessionSend.Sender(
      home: pair.home, pair: pair.name, role: role, applicationGroup: applicationGroup,
      optionalDirectory: optionalDirectory)
  }

  /// The reply timeout as entered, when it is one.
  public var replyTimeoutSeconds: Double? {
    let text = replyTimeout.text.trimmingSpaces
    guard replyTimeoutProblem == nil, !text.isEmpty else { return nil }
    return Double(text)
  }

  /// What stops a send with `type`, or `nil`.
  public func problem(for type: TransitingType) -> String? {
    guard type.isSession else { return nil }
    if pair == nil {
      return "\(type) travels between the devices of a pair, and there is none under the home: "
        + "create one with wormhole-tui pair create NAME"
    }
    if type == .sessionMessage, let problem = replyTimeoutProblem { return "reply timeout: \(problem)" }
    return nil
  }

  /// Which device sends to which, and what `type` means right now for the pair as the
  /// dashboard sees it (`pairs`), in lines: "phone → watch of desk: the watch is not running:
  /// session-message will fail 7007", then the type's option when it has one, then whether the
  /// send goes through the running sender or the dashboard acts as it. None for a file type.
  public func meaning(of type: TransitingType, pairs snapshots: [PairSnapshot]) -> [String] {
    guard type.isSession, let pair else { return [] }
    let head = "\(role.rawValue) → \(receiver.rawValue) of \(DisplayText.field(pair.name))"
    guard let snapshot = snapshots.first(where: { $0.name == pair.name }) else {
      return [head + ": the pair is not in the pairs branch; the send says what happens"]
    }
    let receiverRuns = snapshot.device(receiver).isRunning
    let them = "the \(receiver.rawValue)"
    var lines: [String]
    switch type {
    case .sessionMessage:
      if receiverRuns {
        var text = "delivered live to \(them)"
        if let seconds = replyTimeoutSeconds {
          text += ", then \(Self.seconds(seconds)) for a reply (7012 if none)"
        }
        lines = [head + ": " + text]
      } else {
        lines = [head + ": \(them) is not running: session-message will fail 7007"]
      }
    case .sessionContext:
      lines = [
        head + ": "
          + (receiverRuns
            ? "\(them) receives it now; latest value wins"
            : "queued until \(them) runs; only the newest context is delivered"),
        deliversIdentical
          ? "delivered even if identical to the current context"
          : "an identical context is not delivered again (deliver identical sends it anyway)",
      ]
    case .sessionFile:
      lines = [
        head + ": "
          + (receiverRuns
            ? "delivered to \(them) now, in order, into its mailbox"
            : "queued until \(them) runs: a transfer in the \(role.rawValue)'s queue")
      ]
    case .file, .coordinatedFile:
      return []
    }
    if let pid = snapshot.device(role).runningPID {
      lines.append("sent through the running \(role.rawValue) (pid \(pid))")
    } else {
      lines.append("the \(role.rawValue) is not running: the dashboard acts as it for the send")
    }
    return lines
  }

  private static func seconds(_ value: Double) -> String {
    let shown = value == value.rounded() ? String(Int(value)) : String(value)
    return "waits \(shown) s"
  }

  /// Chooses the next (`step` 1) or previous (-1) pair.
  public mutating func choosePair(_ step: Int) {
    guard !pairs.isEmpty else { return }
    pairIndex = (pairIndex + step + pairs.count) % pairs.count
  }

  /// The other device sends.
  public mutating func switchRole() { role = receiver }

  /// Chooses the pair named `name`, if it is offered.
  public mutating func choosePair(named name: String) {
    if let index = pairs.firstIndex(where: { $0.name == name }) { pairIndex = index }
  }

  /// A key typed into the reply timeout.
  mutating func editReplyTimeout(_ key: Key) {
    if replyTimeout.handle(key) { checkReplyTimeout() }
  }

  /// A paste into the reply timeout.
  mutating func pasteReplyTimeout(_ text: String) throws(TextField.PasteError) {
    try replyTimeout.paste(text)
    checkReplyTimeout()
  }

  private mutating func checkReplyTimeout() {
    let text = replyTimeout.text.trimmingSpaces
    guard !text.isEmpty else {
      replyTimeoutProblem = nil
      return
    }
    guard let value = Double(text), value.isFinite else {
      replyTimeoutProblem = "\(DisplayText.field(text)) is not a number of seconds (empty: no reply)"
      return
    }
    if value <= 0 || value > Self.maximumReplyTimeout {
      replyTimeoutProblem = "give more than 0 and at most \(Int(Self.maximumReplyTimeout)) seconds"
    } else {
      replyTimeoutProblem = nil
    }
  }
}

extension String {
  /// The text without leading and trailing spaces and tabs.
  fileprivate var trimmingSpaces: String {
    var scalars = Substring(self)
    while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
    while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
    return String(scalars)
  }
}
