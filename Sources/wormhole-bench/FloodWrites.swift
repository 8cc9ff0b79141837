import KeyedArchive

/// The flood the stalled- and raw-flood benchmarks write: 20,000 plain write+renames over 100
/// mailboxes, the i-th holding the archived integer i.
struct FloodWrites {
  let writes = 20_000
  let names = 100
  /// The archive of each write, encoded before the clock starts.
  let contents: [[UInt8]]

  init() throws {
    contents = try (0..<writes).map { try KeyedArchiveEncoder().encodeBytes(.integer(Int64($0))) }
  }

  /// Writes the whole flood into `directory` as fast as one thread can, to mailboxes named
  /// `prefix` and a number.
  func write(into directory: String, prefix: String) throws {
    for index in 0..<writes {
      try rawWriteAndRename(contents[index], directory: directory, name: "\(prefix)\(index % names).archive")
    }
  }
}
