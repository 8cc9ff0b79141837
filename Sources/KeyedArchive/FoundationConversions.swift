import ArchivedValues
import Foundation
import PropertyList

extension ArchiveDate {
  /// The same moment as Foundation's `date`.
  public init(_ date: Date) { self.init(secondsSince2001: date.timeIntervalSinceReferenceDate) }

  /// The same moment as a Foundation `Date`.
  public var date: Date { Date(timeIntervalSinceReferenceDate: secondsSince2001) }
}

extension ArchiveUUID {
  /// The same identifier as Foundation's `uuid`.
  public init(_ uuid: UUID) {
    // Sixteen bytes, so the initializer cannot fail.
    self = withUnsafeBytes(of: uuid.uuid) { ArchiveUUID(bytes: $0) } ?? ArchiveUUID(high: 0, low: 0)
  }

  /// The same identifier as a Foundation `UUID`.
  public var uuid: UUID {
    let b = bytes
    return UUID(
      uuid: (
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
      ))
  }
}
