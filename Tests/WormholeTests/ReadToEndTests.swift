import Foundation
import Glibc
import Testing

@testable import Wormhole

/// `FileSystem.readToEnd(_:expectedSize:limit:isRegularFile:)`: a regular file of the size
/// `fstat` stated is read in one call, and one that grew since is still read to its end.
@Suite struct ReadToEndTests {
  private func read(_ text: String, statedSize: Int, isRegularFile: Bool) -> FileSystem.ReadToEnd {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    temporary.write("file", text)
    let descriptor = open(temporary.path("file"), O_RDONLY | O_CLOEXEC)
    defer { _ = close(descriptor) }
    return FileSystem.readToEnd(
      descriptor, expectedSize: statedSize, limit: 1 << 20, isRegularFile: isRegularFile)
  }

  @Test(arguments: [false, true])
  func aFileOfTheStatedSizeIsReadWhole(isRegularFile: Bool) {
    let text = String(repeating: "mailbox ", count: 100)
    let result = read(text, statedSize: text.utf8.count, isRegularFile: isRegularFile)
    guard case .bytes(let bytes) = result else {
      Issue.record("not read")
      return
    }
    #expect(bytes == Array(text.utf8))
  }

  @Test(arguments: [false, true])
  func aFileThatGrewSinceItsSizeWasStatedIsReadToItsEnd(isRegularFile: Bool) {
    let text = String(repeating: "grown ", count: 2000)
    guard case .bytes(let bytes) = read(text, statedSize: 100, isRegularFile: isRegularFile) else {
      Issue.record("not read")
      return
    }
    #expect(bytes == Array(text.utf8))
  }

  @Test func aFileThatShrankIsReadAsItIs() {
    guard case .bytes(let bytes) = read("short", statedSize: 100, isRegularFile: true) else {
      Issue.record("not read")
      return
    }
    #expect(bytes == Array("short".utf8))
  }
}
