/// How much of a device set the reader reads, so that a hostile or enormous set costs bounded
/// time and memory. What lies past a limit is a note.
public struct DeviceSetLimits: Sendable, Hashable {
  /// The most bytes read from one property list (larger ones are a
  /// ``DeviceSetNote/Kind/fileTooLarge(size:limit:)`` note).
  public var maximumFileSize: Int
  /// The most entries read from one directory (the set itself, one `AppGroup` directory).
  public var maximumEntries: Int

  /// 1 MiB per property list (real ones hold a few hundred bytes) and 10,000 entries per directory.
  public static let standard = DeviceSetLimits(maximumFileSize: 1 << 20, maximumEntries: 10_000)

  public init(maximumFileSize: Int, maximumEntries: Int) {
    self.maximumFileSize = max(0, maximumFileSize)
    self.maximumEntries = max(0, maximumEntries)
  }
}
