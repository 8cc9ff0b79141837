import Foundation
import Glibc
import KeyedArchive
import Wormhole
import WormholeVocabulary

enum InspectVerb {
  static let verb = Verb(
    name: "inspect", synopsis: "FILE... [--json] [--strict]",
    summary: "Decode keyed archives and property lists of any classes, without instantiating them.",
    details: """
      A FILE of - is standard input (read --raw ID | wormhole-tui inspect -). Shared objects
      are shown once and referenced where they recur; cycles are shown, never
      followed. A property list that is not an archive is shown as a property list; a damaged
      archive is shown as its property list with the reason on standard error. Warnings (every
      deviation from what Apple's NSKeyedArchiver writes or a wormhole reads, and text repaired
      on reading, such as an unpaired UTF-16 surrogate) go to standard error.

      Exit codes: 0 when every FILE was shown, archive or not, with or without warnings; 3 when
      any FILE could not be read or is not a property list. With --strict, 1 when every FILE was
      shown but one is not a well-formed keyed archive (a property list that is not an archive, a
      damaged archive, or a header or class description deviating from NSKeyedArchiver's); 3
      still wins.
      """,
    options: [
      OptionSpec(
        .json,
        help: "print one JSON document per file; with several FILEs, one line each: "
          + "{\"file\": FILE, \"inspection\": DOCUMENT} or {\"file\": FILE, \"error\": WHY}"),
      OptionSpec(.strict, help: "exit 1 when a FILE is not a well-formed keyed archive"),
    ],
    usesLocation: false,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    guard !arguments.positional.isEmpty else { throw .usage("inspect needs at least one FILE (see --help)") }
    var unreadable = false
    var notWellFormed = false
    let json = arguments.flag(.json)
    // With several FILEs, each JSON line names its file, and one that could not be shown has a
    // line too: a script reads line N as FILE N, whatever failed before it.
    let namesFiles = json && arguments.positional.count > 1
    for (index, file) in arguments.positional.enumerated() {
      let isStandardInput = file == "-"
      let shown = isStandardInput ? "standard input" : DisplayText.field(file)
      func fail(_ message: String) {
        diagnose(message)
        unreadable = true
        if namesFiles { emit("{\"file\":\(JSONText.string(file)),\"error\":\(JSONText.string(message))}") }
      }
      let data: Data
      switch isStandardInput ? readStandardInput() : readFile(file) {
      case .success(let bytes): data = bytes
      case .failure(let problem):
        fail("cannot read \(shown): \(problem.message)")
        continue
      }
      do {
        let inspection = try MessageRendering.inspect(data, source: isStandardInput ? "standard input" : file)
        for warning in inspection.warnings {
          diagnose("\(shown): \(DisplayText.escaped(warning.description))")
        }
        if let reason = inspection.notArchiveReason, !inspection.isPlainPropertyList {
          diagnose("\(shown): not an archive: \(reason)")
        }
        if !inspection.isWellFormedArchive { notWellFormed = true }
        if namesFiles {
          emit("{\"file\":\(JSONText.string(file)),\"inspection\":\(inspection.json())}")
        } else if json {
          emit(inspection.json())
        } else {
          if arguments.positional.count > 1 { emit((index > 0 ? "\n" : "") + "==> \(shown) <==") }
          emitRaw(inspection.textTree())
        }
      } catch {
        fail(error.message)
      }
    }
    if unreadable { return .failure }
    return arguments.flag(.strict) && notWellFormed ? .nothing : .success
  }

  /// Why a file could not be read, for one line on standard error.
  struct ReadProblem: Error {
    var message: String
  }

  /// Reads standard input to its end (`inspect -`, as in `read --raw ID | inspect -`): asked
  /// for by name, so a pipe or a terminal is waited on, as `cat -` waits.
  static func readStandardInput() -> Result<Data, ReadProblem> {
    result(of: FileSystem.readToEnd(STDIN_FILENO, expectedSize: 0, limit: Int.max - 1))
  }

  /// A whole read's bytes, or why it failed, for one line on standard error.
  private static func result(of read: FileSystem.ReadToEnd) -> Result<Data, ReadProblem> {
    switch read {
    case .bytes(let bytes): return .success(Data(bytes))
    case .tooLarge: return .failure(ReadProblem(message: "it is too large to read"))
    case .failed(let code): return .failure(ReadProblem(message: String(cString: strerror(code))))
    }
  }

  /// Reads a whole regular file. The file is opened without blocking (a FIFO with no writer
  /// would wait forever) and checked to be a regular file before reading, and each error is
  /// reported from the call that failed, never from a leftover `errno`.
  static func readFile(_ path: String) -> Result<Data, ReadProblem> {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard descriptor >= 0 else { return .failure(ReadProblem(message: String(cString: strerror(errno)))) }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      return .failure(ReadProblem(message: String(cString: strerror(errno))))
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: return .failure(ReadProblem(message: "it is a directory, not a file"))
    case S_IFIFO: return .failure(ReadProblem(message: "it is a FIFO, not a regular file"))
    case S_IFSOCK: return .failure(ReadProblem(message: "it is a socket, not a regular file"))
    case S_IFCHR, S_IFBLK: return .failure(ReadProblem(message: "it is a device, not a regular file"))
    default: return .failure(ReadProblem(message: "it is not a regular file"))
    }
    return result(of: FileSystem.readToEnd(descriptor, expectedSize: Int(status.st_size), limit: Int.max - 1))
  }
}
