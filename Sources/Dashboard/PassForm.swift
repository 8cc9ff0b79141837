import ArchivedValues
import TerminalInput
import WormholeVocabulary

/// The pass form: where, which identifier, what value (JSON, checked as typed), which
/// transiting type. An empty value passes a notification without a message.
///
/// With a session type the "where" is a pair and its sending device instead of a directory
/// (``SessionFields``): the message goes to the other device, and the form says what the type
/// means for the pair as it is (``sessionMeaning(pairs:)``).
///
/// On a bridged machine (``remote``) the "where" is one of that machine's directories and the
/// form sends a ``RemoteWrite`` to its bridge; while the bridge takes no remote writes (read-only,
/// offline, no bridge info) or the dashboard is read-only, the form says why and Enter passes
/// nothing.
///
/// The JSON is checked once per change of the value (a key or a whole paste), never per frame
/// or per character of a paste; the result is kept with the form. A value larger than
/// ``immediateCheckLimit`` is checked once typing pauses (the dashboard calls
/// ``checkIfPending()`` ``checkDelayMilliseconds`` after the last key) or on Enter, so that a key
/// typed into a large value costs what it draws, not a parse of the whole value.
public struct PassForm: Sendable, FieldForm {
  /// The form's fields in Tab order.
  public enum Field: Int, Sendable, CaseIterable {
    case directory, pair, role, identifier, value, transiting, replyTimeout, deliversIdentical
  }

  public var directories: [FileName]
  public var directoryIndex: Int
  /// The identifier typed; its ``identifierProblem`` is checked whenever its text changes.
  public private(set) var identifier: TextField {
    didSet {
      if identifier.text != oldValue.text {
        identifierProblem = MessageIdentifier.problem(with: identifier.text)
      }
    }
  }
  public private(set) var value: TextField
  /// The types the operator can choose: all five.
  public let transitingTypes = TransitingType.allCases
  public var transitingIndex = 0
  public var focus: Field
  /// The pair, the sending device and the option of a session type.
  public var session: SessionFields
  /// The value as parsed when it last changed, or why it is not JSON. `nil` value: a
  /// notification only.
  public private(set) var parsedValue: Result<ArchivedValue?, JSONParseError> = .success(nil)
  /// How many times the value was checked: once per change, whatever its size.
  package private(set) var valueChecks = 0
  /// Whether the value changed since it was last checked (only ever for a large value).
  public private(set) var isCheckPending = false
  /// The bridged machine the form passes to, `nil` for a local pass.
  public private(set) var remote: RemoteTarget?

  /// A bridged machine a pass goes to, and why its bridge would refuse it when it would.
  public struct RemoteTarget: Sendable, Hashable {
    /// The machine, as its bridge names itself (hostile: shown through `DisplayText`).
    public var machine: String
    /// Why remote writes to it are off now, `nil` when they are accepted.
    public var refusal: String?

    public init(machine: String, refusal: String?) {
      self.machine = machine
      self.refusal = refusal
    }
  }

  /// Values up to this many bytes are checked as each key changes them.
  public static let immediateCheckLimit = 64 << 10
  /// How long after the last key a larger value is checked.
  public static let checkDelayMilliseconds: Int64 = 150

  /// A form for `directory` (the selected one) among `directories`, with the session fields
  /// defaulted from `selection` among `pairs`. A selected pair or device starts with
  /// session-message; anything else with file.
  public init(
    directories: [FileName], directory: FileName?, identifier: String, value: String = "",
    pairs: [PairSnapshot] = [], selection: TreeNodeID? = nil
  ) {
    self.directories = directories
    directoryIndex = directory.flatMap { directories.firstIndex(of: $0) } ?? 0
    self.identifier = TextField(identifier)
    self.value = TextField(value)
    session = SessionFields(
      pairs: pairs, selection: selection, directory: directory, directories: directories)
    focus = identifier.isEmpty ? .identifier : .value
    switch selection {
    case .pair?, .device?:
      transitingIndex = transitingTypes.firstIndex(of: .sessionMessage) ?? 0
    default:
      if directory == nil && directories.count > 1 { focus = .directory }
    }
    identifierProblem = MessageIdentifier.problem(with: identifier)
    if !value.isEmpty { checkValue() }
  }

  /// A form that passes on the bridged machine `remote`, into `directory` (the selected one)
  /// among that machine's `directories` (their whole paths there).
  public init(
    remote: RemoteTarget, directories: [FileName], directory: FileName?, identifier: String,
    value: String = ""
  ) {
    self.init(directories: directories, directory: directory, identifier: identifier, value: value)
    self.remote = remote
    if focus == .transiting { focus = .value }
  }

  /// A remote form's machine stopped (or started again) taking remote writes: why, or `nil`.
  mutating func refuse(_ refusal: String?) {
    remote?.refusal = refusal
  }

  /// The form's title: `Pass a message`, or `Pass a message on ci-3`.
  public var title: String {
    remote.map { "Pass a message on " + DisplayText.field($0.machine) } ?? "Pass a message"
  }

  /// The fields shown for the chosen type, in Tab order (a remote pass: where, what; its bridge
  /// writes the file type).
  public var fields: [Field] {
    if remote != nil { return [.directory, .identifier, .value] }
    switch transiting {
    case .file, .coordinatedFile: return [.directory, .identifier, .value, .transiting]
    case .sessionMessage: return [.pair, .role, .identifier, .value, .transiting, .replyTimeout]
    case .sessionContext: return [.pair, .role, .identifier, .value, .transiting, .deliversIdentical]
    case .sessionFile: return [.pair, .role, .identifier, .value, .transiting]
    }
  }

  /// Which device sends to which and what the type means now, in lines (none for a file type).
  public func sessionMeaning(pairs: [PairSnapshot]) -> [String] {
    session.meaning(of: transiting, pairs: pairs)
  }

  public var directory: FileName? {
    directories.indices.contains(directoryIndex) ? directories[directoryIndex] : nil
  }
  public var transiting: TransitingType {
    transitingTypes.indices.contains(transitingIndex) ? transitingTypes[transitingIndex] : .file
  }

  /// Why the identifier cannot be used, or `nil`: checked when it changes, not per frame.
  public private(set) var identifierProblem: String?

  /// Checks the value now if a key changed it since it was last checked.
  public mutating func checkIfPending() {
    if isCheckPending { checkValue() }
  }

  /// A key changed the value: a small one is checked now, a large one once typing pauses.
  private mutating func valueEdited() {
    if value.text.utf8.count <= Self.immediateCheckLimit { checkValue() } else { isCheckPending = true }
  }

  private mutating func checkValue() {
    valueChecks += 1
    isCheckPending = false
    if value.text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
      parsedValue = .success(nil)
      return
    }
    do {
      parsedValue = .success(try JSONParser().parse(value.text))
    } catch {
      parsedValue = .failure(error)
    }
  }

  /// What stops the form from being sent, first problem first.
  public var problem: String? {
    if let remote {
      let name = DisplayText.field(remote.machine)
      if let refusal = remote.refusal { return "remote writes off on \(name): " + refusal }
      if directory == nil { return "\(name) publishes no directory yet" }
    }
    if transiting.isSession {
      if let problem = session.problem(for: transiting) { return problem }
    } else if directory == nil {
      return "there is no wormhole directory to pass into"
    }
    if let problem = identifierProblem { return "identifier: \(problem)" }
    if isCheckPending { return "value: not checked yet (checked when typing pauses, or on Enter)" }
    if case .failure(let error) = parsedValue { return "value: \(error)" }
    if transiting.isSession, case .success(nil) = parsedValue {
      return
        "value: \(transiting) carries a message: type a JSON value (only the file types notify without one)"
    }
    return nil
  }

  /// The effect the form asks for as it stands, or `nil` when ``problem`` stops it.
  public var effect: DashboardEffect? {
    guard problem == nil, case .success(let message) = parsedValue else { return nil }
    if transiting.isSession {
      guard let sender = session.sender, let message else { return nil }
      return .sessionSend(
        SessionSend(
          sender: sender, transiting: transiting, identifier: identifier.text, content: .value(message),
          replyTimeout: session.replyTimeoutSeconds, deliversIdentical: session.deliversIdentical))
    }
    guard let directory else { return nil }
    if let remote {
      return .remoteWrite(
        RemoteWrite(
          .pass, machine: remote.machine, directory: directory, identifier: FileName(identifier.text),
          value: message))
    }
    return .pass(
      directory: directory, identifier: FileName(identifier.text), value: message, transiting: transiting)
  }

  static let pasteFields = "the identifier or the value"

  /// Pastes into the focused text field; returns `false` when no text field has the focus.
  mutating func paste(_ text: String) throws(TextField.PasteError) -> Bool {
    switch focus {
    case .identifier: try identifier.paste(text)
    case .value:
      try value.paste(text)
      checkValue()
    case .replyTimeout: try session.pasteReplyTimeout(text)
    case .directory, .transiting, .pair, .role, .deliversIdentical: return false
    }
    return true
  }

  /// Handles a key; returns the effect when Enter sends a valid form.
  mutating func handle(_ key: Key) -> (effect: DashboardEffect?, done: Bool) {
    if let step = navigate(key) { return step }
    switch key {
    case .left, .right:
      let step = key == .left ? -1 : 1
      switch focus {
      case .directory where !directories.isEmpty:
        directoryIndex = (directoryIndex + step + directories.count) % directories.count
      case .transiting:
        transitingIndex = (transitingIndex + step + transitingTypes.count) % transitingTypes.count
      case .pair: session.choosePair(step)
      case .role: session.switchRole()
      case .deliversIdentical: session.deliversIdentical.toggle()
      case .identifier, .value, .replyTimeout: edit(key)
      case .directory: break
      }
    case .character(" ") where focus == .role || focus == .deliversIdentical:
      if focus == .role { session.switchRole() } else { session.deliversIdentical.toggle() }
    default:
      edit(key)
    }
    return (nil, false)
  }

  /// A key typed into the focused text field, if one has the focus.
  private mutating func edit(_ key: Key) {
    switch focus {
    case .identifier: identifier.handle(key)
    case .value:
      let before = value.text
      value.handle(key)
      if value.text != before { valueEdited() }
    case .replyTimeout: session.editReplyTimeout(key)
    case .directory, .transiting, .pair, .role, .deliversIdentical: break
    }
  }
}
