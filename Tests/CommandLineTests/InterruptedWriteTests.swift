import Foundation
import Glibc
import Testing

/// A `pass` ended by a signal while it writes a mailbox leaves nothing behind in the directory.
@Suite struct InterruptedWriteTests {
  /// A binary property list holding one data object of `count` zero bytes.
  private static func dataPropertyList(count: Int) -> [UInt8] {
    var bytes = Array("bplist00".utf8)
    bytes += [0x4F, 0x12] + withUnsafeBytes(of: UInt32(count).bigEndian, Array.init)
    bytes += [UInt8](repeating: 0, count: count)
    let table = bytes.count
    bytes.append(8)  // the offset of object 0
    bytes += [0, 0, 0, 0, 0, 0, 1, 1]  // unused, offset size, reference size
    for field in [UInt64(1), 0, UInt64(table)] { bytes += withUnsafeBytes(of: field.bigEndian, Array.init) }
    return bytes
  }

  /// The directory entries that `pid` has open in `directory`, other than its journal.
  private static func openMailboxFiles(of pid: Int32, in directory: String) -> [String] {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
    return descriptors.compactMap { descriptor in
      var buffer = [CChar](repeating: 0, count: 4096)
      let count = readlink("/proc/\(pid)/fd/\(descriptor)", &buffer, buffer.count - 1)
      guard count > 0 else { return nil }
      let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      guard target.hasPrefix(directory + "/"), !target.hasSuffix("/.wormhole-journal") else { return nil }
      return target
    }
  }

  @Test func aPassKilledWhileWritingLeavesNoTemporaryFile() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    try FileManager.default.createDirectory(atPath: home.path + "/box", withIntermediateDirectories: true)
    // As /proc names it: without a doubled slash or a link in the way.
    let directory = URL(fileURLWithPath: home.path + "/box").resolvingSymlinksInPath().standardized.path
    let archive = home.path + "/big.plist"
    // Large enough that the write takes many milliseconds: the test catches the writer in it.
    #expect(
      FileManager.default.createFile(atPath: archive, contents: Data(Self.dataPropertyList(count: 48 << 20))))
    var caught = false
    for _ in 0..<5 where !caught {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: executablePath)
      process.arguments = ["pass", "big", "--archive", archive, "--container", directory]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      // Wait for the moment the mailbox's new contents are being written, then end the process.
      while process.isRunning {
        if !Self.openMailboxFiles(of: process.processIdentifier, in: directory).isEmpty {
          kill(process.processIdentifier, SIGTERM)
          caught = true
          break
        }
        usleep(100)
      }
      process.waitUntilExit()
    }
    #expect(caught, "the writer was never seen writing")
    let left = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(!left.contains { $0.hasSuffix(".tmp") }, "\(left)")
  }
}
