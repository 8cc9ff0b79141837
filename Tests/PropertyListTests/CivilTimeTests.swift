import Testing

@testable import PropertyList

/// The package's one civil calendar: property list and archive dates, the journal's timestamps
/// and the dashboard's dates all convert through it.
@Suite struct CivilTimeTests {
  @Test func instantsRoundTripThroughTheCalendar() {
    for milliseconds: Int64 in [0, 1, -1, 1_764_420_069_123, 253_402_300_799_999, -62_167_219_200_000] {
      let civil = CivilTime(millisecondsSince1970: milliseconds)
      #expect(civil.millisecondsSince1970 == milliseconds)
      #expect(civil.isValid)
    }
    #expect(
      CivilTime(millisecondsSince1970: 1_764_420_069_123).iso8601(alwaysMilliseconds: true)
        == "2025-11-29T12:41:09.123Z")
  }

  @Test func aDayIsTheStartOfThatDay() {
    for days: Int64 in [-719_529, -146_097, -1, 0, 1, 11_016, 11_017, 20_421, 2_932_896, 10_000_000] {
      let date = CivilTime(daysSince1970: days)
      #expect(date == CivilTime(millisecondsSince1970: days * 86_400_000), "\(days)")
      #expect(date.daysSince1970 == days)
      #expect(date.hour == 0 && date.minute == 0 && date.second == 0 && date.millisecond == 0)
    }
    #expect(CivilTime(daysSince1970: -1) == CivilTime(year: 1969, month: 12, day: 31))
    #expect(CivilTime(daysSince1970: 11_016) == CivilTime(year: 2000, month: 2, day: 29))
    #expect(CivilTime(daysSince1970: 2_932_896) == CivilTime(year: 9999, month: 12, day: 31))
  }

  @Test func onlyRealDatesAreValid() {
    #expect(CivilTime(year: 2000, month: 2, day: 29).isValid)
    #expect(!CivilTime(year: 1900, month: 2, day: 29).isValid)
    #expect(!CivilTime(year: 2026, month: 2, day: 31).isValid)
    #expect(!CivilTime(year: 2026, month: 13, day: 1).isValid)
    #expect(!CivilTime(year: 2026, month: 1, day: 1, second: 60).isValid)
  }

  /// Every Int64 is an instant (about 292 million years either side of 1970): the extremes, which
  /// a hostile journal or broker payload can hold, give their fields instead of trapping.
  @Test func theExtremeInstantsHaveFields() {
    let latest = CivilTime(millisecondsSince1970: .max)
    #expect(latest.year == 292_278_994 && latest.month == 8 && latest.day == 17, "\(latest)")
    #expect(latest.hour == 7 && latest.minute == 12 && latest.second == 55 && latest.millisecond == 807)
    let earliest = CivilTime(millisecondsSince1970: .min)
    #expect(earliest.year == -292_275_055 && earliest.month == 5 && earliest.day == 16, "\(earliest)")
    #expect(earliest.hour == 16 && earliest.minute == 47 && earliest.second == 4)
    #expect(earliest.millisecond == 192)
  }
}
