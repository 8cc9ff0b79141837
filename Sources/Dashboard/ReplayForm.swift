import ArchivedValues
import TerminalInput
import WormholeVocabulary

/// The replay form: what is replayed, where to, and with which transiting type. Enter replays,
/// Esc cancels: the form is the confirmation.
public struct ReplayForm: Sendable {
  /// What is replayed.
  public enum Source: Sendable, Hashable {
    /// A kept version of a mailbox.
    case version(directory: FileName, identifier: FileName, serial: UInt64)
    /// A traffic entry.
    case entry(UInt64)
  }

  public enum Field: Int, Sendable, CaseIterable {
    case identifier, transiting
  }

  public var source: Source
  /// What the form says it replays ("version 3 of button", "traffic entry 12: passed button").
  public var title: String
  /// A second line under the title: why this source was chosen, what the type means.
  public var note: String?
  public var directory: FileName
  public private(set) var identifier: TextField
  /// The types offered: those this build passes with, and the source's own type when it is one
  /// this build does not have yet (kept, so it is never silently replaced by `file`).
  public let transitingTypes: [TransitingType]
  public var transitingIndex: Int
  public var focus: Field = .identifier
  /// Why the identifier cannot be used, or `nil`: checked when it changes, not per frame.
  public private(set) var identifierProblem: String?

  /// A form replaying `source` to `identifier` in `directory`, with the type `transiting`
  /// chosen (the source's, or `nil` for `file`).
  public init(
    source: Source, title: String, note: String? = nil, directory: FileName, identifier: String,
    transiting: TransitingType?
  ) {
    self.source = source
    self.title = title
    self.note = note
    self.directory = directory
    self.identifier = TextField(identifier)
    identifierProblem = MessageIdentifier.problem(with: identifier)
    var types = TransitingType.allCases.filter(\.isAvailable)
    if let transiting, !types.contains(transiting) { types.append(transiting) }
    transitingTypes = types
    transitingIndex = transiting.flatMap { types.firstIndex(of: $0) } ?? 0
  }

  public var transiting: TransitingType {
    transitingTypes.indices.contains(transitingIndex) ? transitingTypes[transitingIndex] : .file
  }

  /// What stops the replay, or `nil`.
  public var problem: String? {
    if let problem = identifierProblem { return "identifier: \(problem)" }
    if !transiting.isAvailable {
      return
        "transiting: \(transiting) is not available in this build yet (it comes with paired devices); choose another with ←/→"
    }
    return nil
  }

  /// The effect the form asks for as it stands, or `nil` when ``problem`` stops it.
  public var effect: DashboardEffect? {
    guard problem == nil else { return nil }
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

  /// Pastes into the identifier when it has the focus; returns whether it took the paste.
  mutating func paste(_ text: String) throws(TextField.PasteError) -> Bool {
    guard focus == .identifier else { return false }
    try identifier.paste(text)
    identifierProblem = MessageIdentifier.problem(with: identifier.text)
    return true
  }

  mutating func handle(_ key: Key) -> (effect: DashboardEffect?, done: Bool) {
    switch key {
    case .tab, .backTab, .down, .up:
      focus = focus == .identifier ? .transiting : .identifier
    case .enter:
      guard let effect else { return (nil, false) }
      return (effect, true)
    case .left where focus == .transiting, .right where focus == .transiting:
      let step = key == .left ? -1 : 1
      transitingIndex = (transitingIndex + step + transitingTypes.count) % transitingTypes.count
    default:
      if focus == .identifier, identifier.handle(key) {
        identifierProblem = MessageIdentifier.problem(with: identifier.text)
      }
    }
    return (nil, false)
  }
}
