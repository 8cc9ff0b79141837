/// How much of a device set the reader reads, so that a hostile or enormous set costs bounded
/// time and memory. What lies past a limit is a note.
public struct DeviceSetLimits: Sendable, Hashable {
  /// The most bytes read from one property list (larger ones are a
  /// ``DeviceSetNote/Kind/fileTooLarge(size:limit:)`` note).
  public var maximumFileSize: Int
  /// The most entries read from one directory (the set itself, one `AppGroup` directory).
  public var maximumEntries: Int
  /// The most directory entries read from the whole set; past it, the rest of the set is not
  /// read (one ``DeviceSetNote/Kind/tooManyEntriesInAll(limit:)`` note).
  public var maximumTotalEntries: Int
  /// The most property-list bytes read from the whole set; past it, no more files are read (one
  /// ``DeviceSetNote/Kind/tooManyBytesInAll(limit:)`` note).
  public var maximumTotalBytes: Int

  /// 1 MiB per property list (real ones hold a few hundred bytes), 10,000 entries per
  /// directory, 200,000 entries and 64 MiB in all.
  public static let standard = DeviceSetLimits(maximumFileSize: 1 << 20, maximumEntries: 10_000)

  public init(
    maximumFileSize: Int, maximumEntries: Int, maximumTotalEntries: Int = 200_000,
    maximumTotalBytes: Int = 64 << 20
  ) {
    self.maximumFileSize = max(0, maximumFileSize)
    self.maximumEntries = max(0, maximumEntries)
    self.maximumTotalEntries = max(0, maximumTotalEntries)
    self.maximumTotalBytes = max(0, maximumTotalBytes)
  }
}
