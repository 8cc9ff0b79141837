import Glibc
import KeyedArchive
import Wormhole

/// Exit codes, the same for every verb (documented in the README).
enum ExitCode: Int32 {
  case success = 0
  /// Nothing there: an empty mailbox, a listen that timed out.
  case nothing = 1
  /// The command line is wrong: unknown option, bad identifier, value that is not JSON.
  case usage = 2
  /// The operation failed: unreadable or unwritable directory, undecodable archive, full disk.
  case failure = 3
}

/// A failure that ends the command with a message on standard error and an exit code.
struct CommandError: Error {
  var message: String
  var code: ExitCode

  static func usage(_ message: String) -> CommandError { CommandError(message: message, code: .usage) }
  static func failure(_ message: String) -> CommandError { CommandError(message: message, code: .failure) }

  /// The exit code an error from the library deserves.
  init(_ error: WormholeError) {
    switch error {
    case .invalidIdentifier, .invalidName, .transitingTypeUnavailable:
      self.init(message: error.description, code: .usage)
    default: self.init(message: error.description, code: .failure)
    }
  }

  init(message: String, code: ExitCode) {
    self.message = message
    self.code = code
  }
}

/// One option a verb accepts, with the verb's help for it.
struct OptionSpec: Sendable {
  var option: Option
  var help: String

  init(_ option: Option, help: String) {
    self.option = option
    self.help = help
  }

  var name: String { option.name }
  /// The value's placeholder in help, or `nil` for a flag.
  var value: String? { option.placeholder }
}

/// The command line of one verb, parsed against its options: `--name value`, `--name=value`,
/// flags, `--` to end options (everything after it is positional, so `clear -- --all` names the
/// mailbox `--all`), and positional arguments anywhere. A single `-` or anything not starting
/// with `--` is positional. Names are matched by their exact bytes.
///
/// Options are looked up by ``Option``, never by a string; looking up one the verb did not
/// declare is a programming error, caught by an assertion.
struct ParsedArguments: Sendable {
  var positional: [String] = []
  private var values: [Option: [String]] = [:]
  private let declared: Set<Option>

  init(_ arguments: [String], options: [OptionSpec]) throws(CommandError) {
    declared = Set(options.map(\.option))
    var index = 0
    var optionsEnded = false
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if optionsEnded || !argument.utf8.starts(with: "--".utf8) {
        positional.append(argument)
        continue
      }
      if argument.utf8.count == 2 {
        optionsEnded = true
        continue
      }
      // Split at the first `=` byte: an `=` followed by a combining mark is one Character
      // (`=\u{338}` is "≠"), which a search by Character would not find.
      let body = argument.utf8.dropFirst(2)
      let equals = body.firstIndex(of: UInt8(ascii: "="))
      let name = String(decoding: body[..<(equals ?? body.endIndex)], as: UTF8.self)
      let inline = equals.map { String(decoding: body[body.index(after: $0)...], as: UTF8.self) }
      guard let spec = options.first(where: { $0.name.utf8.elementsEqual(name.utf8) }) else {
        throw .usage("unknown option \(DisplayText.field("--" + name)) (see --help)")
      }
      if spec.value == nil {
        guard inline == nil else { throw .usage("--\(spec.name) takes no value") }
        values[spec.option, default: []].append("")
        continue
      }
      let value: String
      if let inline {
        value = inline
      } else {
        guard index < arguments.count else {
          throw .usage("--\(spec.name) needs a value (\(spec.value ?? ""))")
        }
        value = arguments[index]
        index += 1
      }
      // `--home "$UNSET"` would otherwise name the root directory (`/AppGroup/...`).
      if spec.option.namesDirectory && value.isEmpty {
        throw .usage("--\(spec.name) needs a directory, not an empty value")
      }
      values[spec.option, default: []].append(value)
    }
  }

  /// Whether the verb declared `option` (an option shared by several verbs, read where some
  /// do not take it).
  func declares(_ option: Option) -> Bool { declared.contains(option) }

  private func checked(_ option: Option) -> [String]? {
    assert(declared.contains(option), "--\(option.name) is looked up but not declared by this verb")
    return values[option]
  }

  func flag(_ option: Option) -> Bool {
    assert(option.placeholder == nil, "--\(option.name) takes a value; it is not a flag")
    return checked(option) != nil
  }

  func value(_ option: Option) -> String? {
    assert(option.placeholder != nil, "--\(option.name) is a flag; it has no value")
    return checked(option)?.last
  }

  /// Every value given for `option`, in order (an option that may be repeated).
  func values(_ option: Option) -> [String] {
    assert(option.placeholder != nil, "--\(option.name) is a flag; it has no value")
    return checked(option) ?? []
  }

  func integer(_ option: Option, minimum: Int = 0) throws(CommandError) -> Int? {
    guard let text = value(option) else { return nil }
    guard let number = Int(text), number >= minimum else {
      throw .usage(
        "--\(option.name) takes a whole number of at least \(minimum), not \(DisplayText.field(text))")
    }
    return number
  }

  func seconds(_ option: Option) throws(CommandError) -> Double? {
    guard let text = value(option) else { return nil }
    guard let number = Double(text), number >= 0, number.isFinite else {
      throw .usage("--\(option.name) takes a number of seconds, not \(DisplayText.field(text))")
    }
    return number
  }
}

extension Double {
  /// Seconds as a user writes them: `30`, `0.5`, without a needless `.0`.
  var shownAsSeconds: String {
    self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
  }
}

/// The options every verb takes to choose its wormhole directory.
enum Location {
  static let options = [
    OptionSpec(
      .home, help: "wormhole home (default $WORMHOLE_HOME, else $XDG_DATA_HOME/wormhole)"
    ),
    OptionSpec(.group, help: "application group (default $WORMHOLE_GROUP, else \"default\")"),
    OptionSpec(.directory, help: "optional directory below the group or container"),
    OptionSpec(.container, help: "use this existing directory as the wormhole directory"),
  ]

  /// The wormhole directory the arguments name.
  static func directory(_ arguments: ParsedArguments) throws(CommandError) -> String {
    if let container = arguments.value(.container) {
      if arguments.value(.group) != nil {
        throw .usage("--container replaces --group: give one or the other (--directory goes below either)")
      }
      var status = stat()
      if stat(container, &status) != 0 && errno == ENOENT {
        throw .failure(
          "container \(DisplayText.field(container)) does not exist: a --container is used as it is, never "
            + "created; check the path, or use --group to keep wormholes in the wormhole home")
      }
      do {
        return try WormholeHome.directoryPath(
          container: container, optionalDirectory: arguments.value(.directory))
      } catch {
        throw CommandError(error)
      }
    }
    let environment = WormholeHome.currentEnvironment()
    // `--pair NAME --role ROLE`: the device's containers stand in for the home's.
    let home =
      try PairArguments.deviceHome(arguments) ?? arguments.value(.home)
      ?? WormholeHome.defaultPath(environment: environment)
    let group =
      arguments.value(.group) ?? environment["WORMHOLE_GROUP"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    do {
      return try WormholeHome.directoryPath(
        applicationGroupIdentifier: group, optionalDirectory: arguments.value(.directory), home: home)
    } catch {
      throw CommandError(error)
    }
  }

  /// The wormhole directory when the arguments name a group, or an optional directory below a
  /// container, that does not exist yet: nothing has been passed there, which is not an error.
  static func unusedGroupDirectory(_ arguments: ParsedArguments) throws(CommandError) -> String? {
    // A container is never unused: it must exist. Its optional directory may not, yet.
    guard arguments.value(.container) == nil || arguments.value(.directory) != nil else { return nil }
    let path = try directory(arguments)
    var status = stat()
    return stat(path, &status) != 0 && errno == ENOENT ? path : nil
  }

  /// Opens the wormhole the arguments name. A `--container` must exist; a group's directory is
  /// created only when `creating` (passing), so that reading never litters the home.
  static func wormhole(
    _ arguments: ParsedArguments, transitingType: TransitingType = .file, creating: Bool,
    configure: (inout Wormhole.Options) -> Void = { _ in }
  ) throws(CommandError) -> Wormhole {
    var options = Wormhole.Options()
    if arguments.declares(.sender), let sender = arguments.value(.sender) {
      options.sender = sender
    } else {
      options.sender = "wormhole-tui"
    }
    // The container itself is never created (it was checked to exist); a group's directories
    // and an optional directory below a container are, when passing.
    options.createsDirectory = creating
    configure(&options)
    let path = try directory(arguments)
    do {
      return try Wormhole(directory: path, transitingType: transitingType, options: options)
    } catch {
      throw CommandError(error)
    }
  }
}
