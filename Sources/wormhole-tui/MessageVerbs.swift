import Foundation
import Glibc
import KeyedArchive
import PropertyList
import Wormhole

enum PassVerb {
  static let verb = Verb(
    name: "pass", synopsis: "IDENTIFIER [VALUE] [OPTIONS]",
    summary: "Pass a message to IDENTIFIER's listeners and leave it in its mailbox.",
    details: """
      VALUE is JSON: objects, arrays, strings, numbers, booleans and null become NSDictionary,
      NSArray, NSString, NSNumber and NSNull. With no VALUE (and no --string, --archive or
      --lines) only the notification is posted and the mailbox is left as it is.
      --lines passes each line as soon as it is read (blank lines are skipped), so a line that
      is not JSON (or not UTF-8) stops it after the lines before it were passed: the message
      says how many were, and nothing from that line on is. Exit 2 then.
      --transiting session-context|session-message|session-file sends from a pair's device
      (--pair NAME --role phone|watch): when 'device run' holds the role the verb sends through
      that running device, else it runs as the device while it sends. A session-message needs its counterpart running
      (else "not reachable", 7007, exit 3); with --reply-timeout the reply is printed as JSON,
      or "reply timed out" (7012), exit 3. A context or transfer is stored and delivered when
      both devices run; an identical context is not delivered unless --deliver-identical.
      """,
    options: [
      OptionSpec(.string, help: "pass TEXT as a string instead of JSON"),
      OptionSpec(.archive, help: "pass the bytes of an existing archive (or property list)"),
      OptionSpec(.lines, help: "pass each line of standard input as one JSON message, in order"),
      OptionSpec(.transiting, help: "file (default), coordinated-file, or session-* with --pair"),
      OptionSpec(.sender, help: "sender label in the traffic journal (default wormhole-tui)"),
      OptionSpec(.durable, help: "flush the mailbox to disk before notifying"),
    ] + SessionPass.options + RemoteWriteVerbs.options,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    if RemoteWriteVerbs.isRemote(arguments) { return try RemoteWriteVerbs.pass(arguments) }
    guard let identifier = arguments.positional.first else {
      throw .usage("pass needs an IDENTIFIER (see --help)")
    }
    guard arguments.positional.count <= 2 else {
      throw .usage("pass takes one IDENTIFIER and at most one VALUE; quote a JSON value with spaces")
    }
    try validate(identifier)
    let sources = [
      arguments.positional.count == 2, arguments.value(.string) != nil,
      arguments.value(.archive) != nil, arguments.flag(.lines),
    ].filter { $0 }.count
    guard sources <= 1 else { throw .usage("give only one of VALUE, --string, --archive and --lines") }
    // Read and check the input before touching the wormhole, so that bad input changes nothing.
    var message: ArchivedValue?
    var archive: Data?
    if arguments.positional.count == 2 {
      message = try parseJSON(arguments.positional[1], what: "VALUE", hint: stringHint)
    } else if let text = arguments.value(.string) {
      message = .string(text)
    } else if let file = arguments.value(.archive) {
      archive = try readArchive(file)
    }
    let type = try requestedTransitingType(arguments)
    if type.isSession {
      guard arguments.value(.pair) != nil else { throw .usage(SessionPass.requirement(type)) }
      guard !arguments.flag(.lines) else { throw .usage("--lines is for the file types") }
      let bytes: [UInt8]
      if let archive {
        bytes = [UInt8](archive)
      } else if let message {
        bytes = try SessionLines.archive(message)
      } else {
        throw .usage("a session type carries a message: give VALUE, --string or --archive")
      }
      return try SessionPass.run(arguments, type: type, identifier: identifier, archive: bytes)
    }
    let wormhole = try Location.wormhole(
      arguments, transitingType: try transitingType(arguments), creating: true
    ) { $0.isDurable = arguments.flag(.durable) }
    if arguments.flag(.lines) {
      try passLines(to: wormhole, identifier: identifier)
      return .success
    }
    do {
      if let archive {
        try wormhole.passArchive(archive, identifier: identifier)
      } else {
        try wormhole.passMessage(message, identifier: identifier)
      }
    } catch {
      throw CommandError(error)
    }
    return .success
  }

  /// Passes each line of standard input as it is read. A bad line stops the passing; the error
  /// says how many messages went before it, since those cannot be taken back.
  static func passLines(to wormhole: Wormhole, identifier: String) throws(CommandError) {
    var lines = InputLines()
    var number = 0
    var passed = 0
    func stopped(_ message: String) -> String {
      switch passed {
      case 0: return "\(message); nothing was passed"
      case 1: return "\(message); the 1 message before it was passed, nothing from it on"
      default: return "\(message); the \(passed) messages before it were passed, nothing from it on"
      }
    }
    while let bytes = try lines.next() {
      number += 1
      guard let line = String(validating: bytes, as: UTF8.self) else {
        throw .usage(stopped("line \(number) is not valid UTF-8"))
      }
      if line.allSatisfy(\.isWhitespace) { continue }
      let value: ArchivedValue
      do {
        value = try parseJSON(line, what: "line \(number)")
      } catch {
        throw CommandError(message: stopped(error.message), code: error.code)
      }
      do {
        try wormhole.passMessage(value, identifier: identifier)
      } catch {
        let failed = CommandError(error)
        throw CommandError(message: stopped("line \(number): " + failed.message), code: failed.code)
      }
      passed += 1
    }
  }

  /// `text` parsed as JSON, or a usage error naming `what`; `hint` (such as "pass text with
  /// --string", where the verb has that option) follows the reason in parentheses.
  static func parseJSON(_ text: String, what: String, hint: String? = nil) throws(CommandError)
    -> ArchivedValue
  {
    do {
      return try JSONParser().parse(text)
    } catch {
      throw .usage("\(what) is \(error.description)" + (hint.map { " (\($0))" } ?? ""))
    }
  }

  /// What a VALUE that is not JSON is told, where `--string` is given instead.
  static let stringHint = "pass text with --string"

  /// The bytes of `file`, checked to be a property list. Only a regular file is read (a FIFO
  /// would block, a device never end), and no more than a message may hold.
  static func readArchive(_ file: String) throws(CommandError) -> Data {
    let shown = DisplayText.field(file)
    let descriptor = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { throw .failure("cannot read \(shown): \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw .failure("cannot read \(shown): \(String(cString: strerror(errno)))")
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw .usage("\(shown) is not a regular file: give an archive file to --archive")
    }
    let limit = Wormhole.Options().maximumMessageBytes
    let data: Data
    switch FileSystem.readToEnd(descriptor, expectedSize: Int(status.st_size), limit: limit) {
    case .bytes(let bytes): data = Data(bytes)
    case .tooLarge: throw .usage("\(shown) is larger than the \(limit)-byte limit for one message")
    case .failed(let code): throw .failure("cannot read \(shown): \(String(cString: strerror(code)))")
    }
    do {
      _ = try PropertyListReader().read([UInt8](data))
    } catch {
      throw .usage("\(shown) is not an archive or property list: \(error.description)")
    }
    return data
  }

  static func transitingType(_ arguments: ParsedArguments) throws(CommandError) -> TransitingType {
    let type = try requestedTransitingType(arguments)
    guard !type.isSession else { throw .usage(SessionPass.requirement(type)) }
    guard type.isAvailable else { throw CommandError(.transitingTypeUnavailable(type)) }
    return type
  }

  /// The `--transiting` type named, whether or not this verb can use it here.
  static func requestedTransitingType(_ arguments: ParsedArguments) throws(CommandError) -> TransitingType {
    guard let name = arguments.value(.transiting) else { return .file }
    guard let type = TransitingType(rawValue: name) else {
      throw .usage(
        "unknown transiting type \(DisplayText.field(name)); one of \(TransitingType.allCases.map(\.rawValue).joined(separator: ", "))"
      )
    }
    return type
  }
}

func validate(_ identifier: String) throws(CommandError) {
  do {
    try MessageIdentifier.validate(identifier)
  } catch {
    throw CommandError(error)
  }
}

/// Renders a mailbox's bytes the same way for `read`, `listen` and `inspect`: resolved without
/// instantiating any class, whatever classes it holds.
enum MessageRendering {
  static func inspect(_ bytes: Data, source: String) throws(CommandError) -> Inspection {
    do {
      return try KeyedArchiveInspector().inspect(bytes)
    } catch {
      throw .failure("cannot decode \(DisplayText.field(source)): \(error.description)")
    }
  }
}

enum ReadVerb {
  static let verb = Verb(
    name: "read", synopsis: "IDENTIFIER [--json | --raw] [OPTIONS]",
    summary: "Print the message in IDENTIFIER's mailbox; exit 1 when it is empty.",
    details: """
      The archive is decoded without instantiating any class, so messages of classes this
      program does not know print as their class name and fields. --json prints one JSON value
      (plain JSON where the message is JSON-like); --raw copies the archive's bytes.
      --pair NAME --role ROLE reads a simulated device's containers. With it, session-context
      reads the received context's value (else the device's own context's), session-file the
      mailbox a transfer was stored in, and session-message nothing: it is never stored.
      """,
    options: [
      OptionSpec(.json, help: "print the message as JSON"),
      OptionSpec(.raw, help: "write the archive's bytes to standard output"),
      OptionSpec(
        .transiting, help: "file (default), coordinated-file (under the lock), or session-* with --pair"),
    ] + PairArguments.deviceOptions,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    guard arguments.positional.count == 1, let identifier = arguments.positional.first else {
      throw .usage("read takes one IDENTIFIER (see --help)")
    }
    try validate(identifier)
    guard !(arguments.flag(.json) && arguments.flag(.raw)) else {
      throw .usage("give --json or --raw, not both")
    }
    let type = try PassVerb.requestedTransitingType(arguments)
    if type.isSession && arguments.value(.pair) == nil { throw .usage(SessionPass.requirement(type)) }
    if type == .sessionContext || type == .sessionMessage {
      guard let archive = try SessionMailboxes.read(arguments, type: type, identifier: identifier) else {
        return .nothing
      }
      return try show(archive, identifier: identifier, source: identifier, arguments: arguments)
    }
    if let unused = try Location.unusedGroupDirectory(arguments) {
      diagnose(
        "no message for \(DisplayText.field(identifier)): nothing has been passed here yet "
          + "(\(DisplayText.field(unused)) does not exist)")
      return .nothing
    }
    let wormhole = try Location.wormhole(
      arguments, transitingType: type.isSession ? .file : try PassVerb.transitingType(arguments),
      creating: false)
    let archive: Data?
    do {
      archive = try wormhole.archive(withIdentifier: identifier)
    } catch {
      throw CommandError(error)
    }
    guard let archive else {
      diagnose("no message for \(DisplayText.field(identifier)) in \(DisplayText.field(wormhole.directory))")
      return .nothing
    }
    return try show(
      archive, identifier: identifier,
      source: (try? wormhole.mailboxPath(forIdentifier: identifier)) ?? identifier, arguments: arguments)
  }

  /// Prints a message's archive as `read` does: its bytes, JSON or a text tree.
  static func show(_ archive: Data, identifier: String, source: String, arguments: ParsedArguments)
    throws(CommandError) -> ExitCode
  {
    if arguments.flag(.raw) {
      emitRaw(archive)
      return .success
    }
    let inspection = try MessageRendering.inspect(archive, source: source)
    let shown = DisplayText.field(identifier)
    for warning in inspection.warnings { diagnose("\(shown): \(warning)") }
    if let reason = inspection.notArchiveReason {
      diagnose("\(shown): shown as a property list: \(reason)")
    }
    emit(arguments.flag(.json) ? inspection.root.json() : inspection.root.textTree(label: identifier))
    return .success
  }
}

enum ClearVerb {
  static let verb = Verb(
    name: "clear", synopsis: "IDENTIFIER... | --all [OPTIONS]",
    summary: "Remove mailboxes; with --all, every mailbox of the directory and nothing else.",
    details: """
      --pair NAME --role ROLE clears a simulated device's mailboxes (with session-file, those its
      received transfers were stored in). session-context removes the identifiers (--all: every
      one) from the device's application context, delivered when both devices run (through the
      running device when device run holds the role). session-message has nothing to clear: it is
      never stored.
      """,
    options: [
      OptionSpec(.all, help: "remove every *.archive mailbox in the directory"),
      OptionSpec(.transiting, help: "file (default), coordinated-file, or session-* with --pair"),
      OptionSpec(.sender, help: "sender label in the traffic journal"),
    ] + PairArguments.deviceOptions + RemoteWriteVerbs.options,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    if RemoteWriteVerbs.isRemote(arguments) { return try RemoteWriteVerbs.clear(arguments) }
    let all = arguments.flag(.all)
    guard all != !arguments.positional.isEmpty else {
      throw .usage(
        all ? "give identifiers or --all, not both" : "clear needs IDENTIFIER... or --all (see --help)")
    }
    for identifier in arguments.positional { try validate(identifier) }
    let type = try PassVerb.requestedTransitingType(arguments)
    if type.isSession && arguments.value(.pair) == nil { throw .usage(SessionPass.requirement(type)) }
    if type == .sessionContext || type == .sessionMessage {
      try SessionMailboxes.clear(arguments, type: type, identifiers: arguments.positional, all: all)
      return .success
    }
    // A group nothing was passed in has nothing to clear.
    if try Location.unusedGroupDirectory(arguments) != nil { return .success }
    let wormhole = try Location.wormhole(
      arguments, transitingType: type.isSession ? .file : try PassVerb.transitingType(arguments),
      creating: false)
    do {
      if all {
        try wormhole.clearAllMessageContents()
      } else {
        for identifier in arguments.positional {
          try wormhole.clearMessageContents(forIdentifier: identifier)
        }
      }
    } catch {
      throw CommandError(error)
    }
    return .success
  }
}
