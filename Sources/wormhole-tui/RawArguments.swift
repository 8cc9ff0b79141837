import Glibc
import WormholeVocabulary

/// The command line's arguments, read from the bytes the process was given.
///
/// `CommandLine.arguments` turns bytes that are not valid UTF-8 into U+FFFD, so an argument
/// naming a file whose name is not UTF-8 would silently name another file (or pass other
/// text). Every argument here is the exact text it was given, or the command is refused.
enum RawArguments {
  /// The arguments after the program name, each exactly as given; a usage error (exit 2) that
  /// shows the first argument that is not valid UTF-8, its undecodable bytes escaped.
  static func decoded() throws(CommandError) -> [String] {
    var arguments: [String] = []
    let count = Int(CommandLine.argc)
    for index in 1..<max(count, 1) {
      guard let pointer = CommandLine.unsafeArgv[index] else { break }
      let bytes = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))
      guard let argument = String(validating: bytes, as: UTF8.self) else {
        throw .usage(
          "argument \(index) \(FileName(bytes: bytes).displayField) is not valid UTF-8: it cannot name "
            + "the file or mailbox it means, because wormhole-tui takes its arguments as text "
            + "(rename the file, or refer to it by a name that is UTF-8)")
      }
      arguments.append(argument)
    }
    return arguments
  }
}
