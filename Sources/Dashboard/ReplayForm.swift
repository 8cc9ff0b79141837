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
  public var directory: FileName
  public var identifier: TextField
  public var transitingTypes: [String]
  public var transitingIndex: Int
  public var focus: Field = .identifier

  public init(source: Source, title: String, directory: FileName, identifier: String, transiting: String?) {
    self.source = source
    self.title = title
    self.directory = directory
    self.identifier = TextField(identifier)
    let types = TransitingType.allCases.filter(\.isAvailable).map(\.rawValue)
    transitingTypes = types
    transitingIndex = transiting.flatMap { types.firstIndex(of: $0) } ?? 0
  }

  public var transiting: String { transitingTypes[transitingIndex] }

  public var problem: String? {
    MessageIdentifier.problem(with: identifier.text).map { "identifier: \($0)" }
  }

  mutating func handle(_ key: Key) -> (effect: DashboardEffect?, done: Bool) {
    switch key {
    case .tab, .backTab, .down, .up:
      focus = focus == .identifier ? .transiting : .identifier
    case .enter:
      guard problem == nil else { return (nil, false) }
      switch source {
      case .version(let sourceDirectory, let sourceIdentifier, let serial):
        return (
          .replayVersion(
            directory: sourceDirectory, identifier: sourceIdentifier, serial: serial, toDirectory: directory,
            toIdentifier: FileName(identifier.text), transiting: transiting), true
        )
      case .entry(let entry):
        return (
          .replayEntry(
            entry: entry, toDirectory: directory, toIdentifier: FileName(identifier.text),
            transiting: transiting),
          true
        )
      }
    case .left where focus == .transiting, .right where focus == .transiting:
      let step = key == .left ? -1 : 1
      transitingIndex = (transitingIndex + step + transitingTypes.count) % transitingTypes.count
    default:
      if focus == .identifier { identifier.handle(key) }
    }
    return (nil, false)
  }
}
