import Foundation
import Glibc
import Testing

/// A container on a read-only file system (a mounted simulator container) reads as it is, and a
/// write there says the directory is read-only, as for one without write permission.
@Suite struct ReadOnlyFileSystemTests {
  /// Runs `wormhole-tui arguments…` with `directory` bind-mounted read-only over itself in a mount
  /// namespace of its own (nothing changes outside it), or `nil` when that is not possible here.
  private func runOnReadOnlyMount(_ directory: String, _ arguments: [String]) throws -> CommandResult? {
    let unshare = "/usr/bin/unshare"
    guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: unshare) else { return nil }
    let script =
      "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && shift && exec \"$0\" \"$@\""
    let result = try runProgram(
      unshare,
      ["-m", "--propagation", "private", "/bin/sh", "-c", script, executablePath, directory] + arguments)
    // No mount namespace here (a container without the capability): nothing to test.
    return result.errors.contains("unshare:") || result.errors.contains("mount:") ? nil : result
  }

  @Test(arguments: [["pass", "a", "2"], ["clear", "a"], ["clear", "--all"]])
  func aWriteOnAReadOnlyFileSystemSaysTheDirectoryIsReadOnly(_ write: [String]) throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let location = ["--container", home.path]
    #expect(try run(["pass", "a", "1"] + location).status == 0)
    guard let read = try runOnReadOnlyMount(home.path, ["read", "a"] + location) else { return }
    #expect(read.status == 0 && read.output.hasPrefix("a: 1\n"), "\(read.errors)")
    let result = try #require(try runOnReadOnlyMount(home.path, write + location))
    #expect(result.status == 3)
    #expect(result.errors.contains("read-only file system: reading works"), "\(result.errors)")
    #expect(try run(["read", "a"] + location).output.hasPrefix("a: 1\n"))
  }
}
