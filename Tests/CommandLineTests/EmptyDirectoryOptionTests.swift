import Foundation
import Testing

/// A directory option given an empty value (`--home "$UNSET"`) is a usage error: it is not taken
/// as the root directory, where `pass` would create `/AppGroup/default`.
@Suite struct EmptyDirectoryOptionTests {
  @Test(arguments: [
    ["read", "x", "--home", ""], ["read", "x", "--home="], ["clear", "x", "--home", ""],
    ["tail", "--home", ""], ["dump", "--home", ""], ["read", "x", "--container", ""],
    ["pair", "list", "--home", ""],
  ])
  func anEmptyDirectoryIsRefused(_ arguments: [String]) throws {
    let result = try run(arguments)
    #expect(result.status == 2, "\(result.errors)")
    #expect(result.errors.contains("needs a directory, not an empty value"), "\(result.errors)")
    #expect(result.output.isEmpty)
  }
}
