import ArchivedValues
import TerminalInput
import WormholeVocabulary

/// The replay form: what is replayed, where to, and with which transiting type. Enter replays,
/// Esc cancels: the form is the confirmation.
///
/// Any source goes to any of the five types: a file mailbox's version sent as a session
/// message, a delivered transfer re-sent as a context. With a session type the target is a
/// pair's device (``SessionFields``, defaulted from the source's directory when it lies in a
/// device's group) and the identifier the message is sent with.
public struct ReplayForm: Sendable, FieldForm {
  /// What is replayed.
  public enum Source: Sendable, Hashable {
    /// A kept version of a mailbox.
    case version(directory: FileName, identifier: FileName, serial: UInt64)
    /// A traffic entry.
    case entry(UInt64)
  }

  public enum Field: Int, Sendable, CaseIterable {
    case identifier, transiting, pair, role, replyTimeout, deliversIdentical
  }

  public var source: Source
  /// What the form says it replays ("the version modified at 12:00:01.250 of button", "traffic entry 12: passed button").
  public var title: String
  /// A second line under the title: why this source was chosen, what the type means.
  public var note: String?
  public var directory: FileName
  /// The identifier typed; its ``identifierProblem`` is checked whenever its text changes.
  public private(set) var identifier: TextField {
    didSet {
      if identifier.text != oldValue.text {
        identifierProblem = MessageIdentifier.problem(with: identifier.text)
      }
    }
  }
  /// The types offered: all five.
  public let transitingTypes = TransitingType.allCases
  public var transitingIndex: Int
  public var focus: Field = .identifier
  /// Why the identifier cannot be used, or `nil`: checked when it changes, not per frame.
  public private(set) var identifierProblem: String?
  /// The pair, the sending device and the option of a session type.
  public var session: SessionFields
  /// Why the source cannot be sent with a session type (a notification or a clear carries no
  /// message), or `nil` when it can.
  public var sessionRefusal: String?

  /// A form replaying `source` to `identifier` in `directory`, with the type `transiting`
  /// chosen (the source's, or `nil` for `file`), its session fields defaulted from `directory`
  /// among `pairs`.
  public init(
    source: Source, title: String, note: String? = nil, directory: FileName, identifier: String,
    transiting: TransitingType?, pairs: [PairSnapshot] = [], directories: [FileName] = [],
    sessionRefusal: String? = nil
  ) {
    self.source = source
    self.title = title
    self.note = note
    self.directory = directory
    self.identifier = TextField(identifier)
    identifierProblem = MessageIdentifier.problem(with: identifier)
    transitingIndex = transiting.flatMap { TransitingType.allCases.firstIndex(of: $0) } ?? 0
    session = SessionFields(pairs: pairs, selection: nil, directory: directory, directories: directories)
    self.sessionRefusal = sessionRefusal
  }

  public var transiting: TransitingType {
    transitingTypes.indices.contains(transitingIndex) ? transitingTypes[transitingIndex] : .file
  }

  /// The fields shown for the chosen type, in Tab order.
  public var fields: [Field] {
    switch transiting {
    case .file, .coordinatedFile: return [.identifier, .transiting]
    case .sessionMessage: return [.identifier, .transiting, .pair, .role, .replyTimeout]
    case .sessionContext: return [.identifier, .transiting, .pair, .role, .deliversIdentical]
    case .sessionFile: return [.identifier, .transiting, .pair, .role]
    }
  }

  /// Which device sends to which and what the type means now, in lines (none for a file type).
  public func sessionMeaning(pairs: [PairSnapshot]) -> [String] {
    session.meaning(of: transiting, pairs: pairs)
  }

  /// What stops the replay, or `nil`.
  public var problem: String? {
    if let problem = identifierProblem { return "identifier: \(problem)" }
    guard transiting.isSession else { return nil }
    if let refusal = sessionRefusal { return "\(transiting): \(refusal); choose file or coordinated-file" }
    return session.problem(for: transiting)
  }

  /// The effect the form asks for as it stands, or `nil` when ``problem`` stops it.
  public var effect: DashboardEffect? {
    guard problem == nil else { return nil }
    if transiting.isSession {
      guard let sender = session.sender else { return nil }
      let content: SessionSend.Content
      switch source {
      case .version(let directory, let identifier, let serial):
        content = .version(directory: directory, identifier: identifier, serial: serial)
      case .entry(let entry): content = .entry(entry)
      }
      return .sessionSend(
        SessionSend(
          sender: sender, transiting: transiting, identifier: identifier.text, content: content,
          replyTimeout: session.replyTimeoutSeconds, deliversIdentical: session.deliversIdentical))
    }
    switch source {
    case .version(let sourceDirectory, let sourceIdentifier, let serial):
      return .replayVersion(
        directory: sourceDirectory, identifier: sourceIdentifier, serial: serial, toDirectory: directory,
        toIdentifier: FileName(identifier.text), transiting: transiting)
    case .entry(let entry):
      return .replayEntry(
        entry: entry, toDirectory: directory, toIdentifier: FileName(identifier.text), transiting: transiting)
    }
  }

  static let pasteFields = "the identifier"

  /// Pastes into the identifier or the reply timeout when it has the focus; returns whether it
  /// took the paste.
  mutating func paste(_ text: String) throws(TextField.PasteError) -> Bool {
    switch focus {
    case .identifier: try identifier.paste(text)
    case .replyTimeout: try session.pasteReplyTimeout(text)
    case .transiting, .pair, .role, .deliversIdentical:
      return false
    }
    return true
  }

  mutating func handle(_ key: Key) -> (effect: DashboardEffect?, done: Bool) {
    if let step = navigate(key) { return step }
    switch key {
    case .left where focus != .identifier && focus != .replyTimeout,
      .right where focus != .identifier && focus != .replyTimeout:
      let step = key == .left ? -1 : 1
      switch focus {
      case .transiting:
        transitingIndex = (transitingIndex + step + transitingTypes.count) % transitingTypes.count
      case .pair: session.choosePair(step)
      case .role: session.switchRole()
      case .deliversIdentical: session.deliversIdentical.toggle()
      case .identifier, .replyTimeout: break
      }
    case .character(" ") where focus == .role || focus == .deliversIdentical:
      if focus == .role { session.switchRole() } else { session.deliversIdentical.toggle() }
    default:
      switch focus {
      case .identifier: identifier.handle(key)
      case .replyTimeout: session.editReplyTimeout(key)
      case .transiting, .pair, .role, .deliversIdentical: break
      }
    }
    return (nil, false)
  }
}
