import Foundation
import KeyedArchive
import PropertyList
import Testing

/// The Foundation-free value types agree with Foundation, which stays the reference here.
@Suite struct FoundationFreeValueTests {
  @Test(arguments: [
    0, 1, -1, 0.5, 0.001, 0.0004, 0.9996, 59.999, 12.25, -0.25, 86_399.5, 1_000_000_000.125, -978_307_200,
    -1_000_000_000_000, 3_000_000_000, 7_000_000_000.75, 252_460_800, 951_782_400, -63_114_076_800,
  ])
  func isoTextMatchesFoundation(secondsSince2001: Double) {
    let date = Date(timeIntervalSinceReferenceDate: secondsSince2001)
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    let millis = ((secondsSince2001 - secondsSince2001.rounded(.down)) * 1000).rounded()
    if millis != 0 && millis != 1000 {
      formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    }
    var expected = formatter.string(from: date)
    // Foundation writes years before 1 without a sign; ours says `-YYYY` (astronomical year).
    if date.timeIntervalSince1970 < -62_135_596_800 { expected = "-" + expected }
    let ours = ArchiveDate(secondsSince2001: secondsSince2001).iso8601
    if date.timeIntervalSince1970 >= -62_135_596_800 { #expect(ours == expected) }
    #expect(ArchiveDate(date).date == date)
  }

  @Test func isoTextOfDatesNoCalendarHolds() {
    #expect(ArchiveDate(secondsSince2001: .nan).iso8601 == "invalid date (nan s since 2001)")
    #expect(ArchiveDate(secondsSince2001: 1e20).iso8601.hasPrefix("invalid date"))
  }

  @Test func base64MatchesFoundation() {
    var generator = SystemRandomNumberGenerator()
    for length in 0..<70 {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let text = Base64.encoded(bytes)
      #expect(text == Data(bytes).base64EncodedString())
      #expect(Base64.decoded(text) == bytes)
    }
    // Foundation lets one of these through; the property-list reader refuses them all.
    for bad in ["A", "AB", "ABC", "A===", "AB=C", "AB\nC", "ABC*", "=ABC"] {
      #expect(Base64.decoded(bad) == nil)
    }
  }

  @Test func uuidTextAndBytesMatchFoundation() throws {
    for _ in 0..<20 {
      let uuid = UUID()
      let ours = ArchiveUUID(uuid)
      #expect(ours.uuidString == uuid.uuidString)
      #expect(ours.uuid == uuid)
      #expect(ArchiveUUID(bytes: ours.bytes) == ours)
    }
    #expect(ArchiveUUID(bytes: [UInt8](repeating: 0, count: 15)) == nil)
  }
}
