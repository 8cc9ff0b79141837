import ArchivedValues
import TerminalInput
import WormholeVocabulary

/// The pass form: where, which identifier, what value (JSON, checked as typed), which
/// transiting type. An empty value passes a notification without a message.
public struct PassForm: Sendable {
  /// The form's fields in Tab order.
  public enum Field: Int, Sendable, CaseIterable {
    case directory, identifier, value, transiting
  }

  public var directories: [FileName]
  public var directoryIndex: Int
  public var identifier: TextField
  public var value: TextField
  public var transitingTypes: [String]
  public var transitingIndex = 0
  public var focus: Field

  public init(directories: [FileName], directory: FileName?, identifier: String) {
    self.directories = directories
    directoryIndex = directory.flatMap { directories.firstIndex(of: $0) } ?? 0
    self.identifier = TextField(identifier)
    value = TextField()
    transitingTypes = TransitingType.allCases.filter(\.isAvailable).map(\.rawValue)
    focus = identifier.isEmpty ? .identifier : .value
    if directory == nil && directories.count > 1 { focus = .directory }
  }

  public var directory: FileName? {
    directories.indices.contains(directoryIndex) ? directories[directoryIndex] : nil
  }
  public var transiting: String { transitingTypes[transitingIndex] }

  /// Why the identifier cannot be used, or `nil`.
  public var identifierProblem: String? { MessageIdentifier.problem(with: identifier.text) }

  /// The value as parsed, or why it is not JSON. `nil` value: a notification only.
  public var parsedValue: Result<ArchivedValue?, JSONParseError> {
    if value.text.allSatisfy(\.isWhitespace) { return .success(nil) }
    do {
      return .success(try JSONParser().parse(value.text))
    } catch {
      return .failure(error)
    }
  }

  /// What stops the form from being sent, first problem first.
  public var problem: String? {
    if directory == nil { return "there is no wormhole directory to pass into" }
    if let problem = identifierProblem { return "identifier: \(problem)" }
    if case .failure(let error) = parsedValue { return "value: \(error)" }
    return nil
  }

  /// Handles a key; returns the effect when Enter sends a valid form.
  mutating func handle(_ key: Key) -> (effect: DashboardEffect?, done: Bool) {
    switch key {
    case .tab, .down:
      focus = Field(rawValue: (focus.rawValue + 1) % Field.allCases.count) ?? .identifier
    case .backTab, .up:
      focus =
        Field(rawValue: (focus.rawValue + Field.allCases.count - 1) % Field.allCases.count) ?? .identifier
    case .enter:
      guard problem == nil, let directory, case .success(let message) = parsedValue else {
        return (nil, false)
      }
      return (
        .pass(
          directory: directory, identifier: FileName(identifier.text), value: message, transiting: transiting),
        true
      )
    case .left where focus == .directory || focus == .transiting,
      .right where focus == .directory || focus == .transiting:
      let step = key == .left ? -1 : 1
      if focus == .directory, !directories.isEmpty {
        directoryIndex = (directoryIndex + step + directories.count) % directories.count
      } else if focus == .transiting {
        transitingIndex = (transitingIndex + step + transitingTypes.count) % transitingTypes.count
      }
    default:
      switch focus {
      case .identifier: identifier.handle(key)
      case .value: value.handle(key)
      case .directory, .transiting: break
      }
    }
    return (nil, false)
  }
}
