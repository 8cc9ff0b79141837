import Testing
import WormholeVocabulary

/// The one journal-time formatter and parser, without the C library.
@Suite struct UTCTimestampTests {
  @Test func knownTimes() {
    #expect(UTCTimestamp.text(ofMilliseconds: 0) == "1970-01-01T00:00:00.000Z")
    #expect(UTCTimestamp.text(ofMilliseconds: -1) == "1969-12-31T23:59:59.999Z")
    #expect(UTCTimestamp.text(ofMilliseconds: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
    #expect(UTCTimestamp.text(ofMilliseconds: 1_796_114_900_329) == "2026-12-01T08:48:20.329Z")
    #expect(UTCTimestamp.milliseconds(fromText: "0000-01-01T00:00:00.000Z") == -62_167_219_200_000)
    #expect(UTCTimestamp.milliseconds(fromText: "9999-12-31T23:59:59.999Z") == 253_402_300_799_999)
  }

  @Test func yearsPastFourDigitsKeepTheirLastFour() {
    // 10000-01-01, and the last millisecond of year -1 (year 0 is the earliest the journal writes).
    #expect(UTCTimestamp.text(ofMilliseconds: 253_402_300_800_000) == "0000-01-01T00:00:00.000Z")
    #expect(UTCTimestamp.text(ofMilliseconds: -62_167_219_200_001) == "0000-12-31T23:59:59.999Z")
    let parts = UTCTimestamp.parts(ofMilliseconds: -62_167_219_200_001)
    #expect(parts.year == -1 && parts.month == 12 && parts.day == 31)
    #expect(UTCTimestamp.milliseconds(of: parts) == -62_167_219_200_001)
  }

  @Test func everyFormattedTimeReadsBack() {
    var milliseconds: Int64 = -62_167_219_200_000
    while milliseconds < 253_402_300_799_999 {
      let text = UTCTimestamp.text(ofMilliseconds: milliseconds)
      #expect(UTCTimestamp.milliseconds(fromText: text) == milliseconds, "\(text)")
      milliseconds += 7_777_777_777_777
    }
  }

  @Test func impossibleTimesAreRefused() {
    for text in [
      "2026-02-29T00:00:00.000Z", "2026-13-01T00:00:00.000Z", "2026-01-01T24:00:00.000Z",
      "2026-01-01T00:60:00.000Z", "2026-01-01T00:00:60.000Z", "2026-01-01T00:00:00.000",
      "2026-01-01 00:00:00.000Z",
    ] {
      #expect(UTCTimestamp.milliseconds(fromText: text) == nil, "\(text)")
    }
  }
}
