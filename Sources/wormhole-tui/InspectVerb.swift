import Foundation
import Glibc
import KeyedArchive

enum InspectVerb {
  static let verb = Verb(
    name: "inspect", synopsis: "FILE... [--json]",
    summary: "Decode keyed archives and property lists of any classes, without instantiating them.",
    details: """
      Shared objects are shown once and referenced where they recur; cycles are shown, never
      followed. A readable property list that is not an archive is shown as a property list,
      with the reason on standard error. Exit 3 when any FILE could not be decoded.
      """,
    options: [OptionSpec(name: "json", value: nil, help: "print one JSON document per file")],
    usesLocation: false,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    guard !arguments.positional.isEmpty else { throw .usage("inspect needs at least one FILE (see --help)") }
    var code = ExitCode.success
    for (index, file) in arguments.positional.enumerated() {
      guard let data = FileManager.default.contents(atPath: file) else {
        diagnose("cannot read \(DisplayText.field(file)): \(String(cString: strerror(errno)))")
        code = .failure
        continue
      }
      do {
        let inspection = try MessageRendering.inspect(data, source: file)
        let shown = DisplayText.field(file)
        for warning in inspection.warnings { diagnose("\(shown): \(warning)") }
        if let reason = inspection.notArchiveReason { diagnose("\(shown): not an archive: \(reason)") }
        if arguments.flag("json") {
          emit(inspection.json())
        } else {
          if arguments.positional.count > 1 {
            emit((index > 0 ? "\n" : "") + "==> \(DisplayText.field(file)) <==")
          }
          emit(inspection.textTree())
        }
      } catch {
        diagnose(error.message)
        code = .failure
      }
    }
    return code
  }
}
