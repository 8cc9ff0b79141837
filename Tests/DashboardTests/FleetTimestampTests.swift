import FleetModel
import Testing
import WormholeVocabulary

/// Timestamps from the broker at the ends of what the format can write (year 0000, year 9999):
/// a retained mailbox payload with `"modified":"9999-12-31T23:59:59.999Z"` crashed every
/// fleet dashboard and `dump --broker` that read it (milliseconds times 1,000,000 overflowed),
/// at each start, for as long as the broker kept it.
@Suite struct FleetTimestampTests {
  static let extremes = ["9999-12-31T23:59:59.999Z", "0000-01-01T00:00:00.000Z", "2262-04-11T23:47:16.855Z"]

  static func mailbox(modified: String) -> FleetInput {
    var input = Bridged.mailbox("tm", "/d", "x", .string("v"))
    input.payload = Array(
      String(decoding: input.payload, as: UTF8.self).replacingOccurrences(
        of: "\"modified\":\"2025-11-30T10:00:00.000Z\"", with: "\"modified\":\"\(modified)\""
      ).replacingOccurrences(
        of: "\"last_change\":\"2025-11-30T10:00:00.000Z\"", with: "\"last_change\":\"\(modified)\""
      ).utf8)
    return input
  }

  static func traffic(time: String) -> FleetInput {
    var input = Bridged.traffic("tm", "/d", "y")
    input.payload = Array(
      String(decoding: input.payload, as: UTF8.self).replacingOccurrences(
        of: "2025-11-30T10:00:01.000Z", with: time
      ).utf8)
    return input
  }

  @Test(arguments: extremes) func aMailboxModifiedAtAnExtremeIsKeptWithoutAModificationTime(_ time: String) {
    var fleet = FleetState()
    fleet.apply([Bridged.presence("tm", "online"), Self.mailbox(modified: time)], at: 1)
    let version = fleet.mailbox("x", in: "/d", machine: "tm")?.current
    #expect(version != nil)
    #expect(version?.modifiedNanoseconds == 0)
  }

  @Test(arguments: extremes) func theDashboardShowsExtremeTimesOfAMachine(_ time: String) {
    var harness = DashboardHarness(width: 140, height: 30)
    harness.sendFleet(
      [Bridged.presence("tm", "online"), Self.mailbox(modified: time), Self.traffic(time: time)],
      at: harness.now)
    harness.type("jjj")
    harness.type("s")
    harness.type("s")
    #expect(harness.description.contains("tm"), "\(harness)")
  }
}

/// A reply's `modified_ms` is any integer a publisher writes (a forged reply included).
@Suite struct FleetReplyTimestampTests {
  @Test(arguments: [Int64.max, Int64.min, -1, 253_402_300_800_000])
  func anyModificationTimeInAReplyIsWrittenWithoutATrap(_ milliseconds: Int64) {
    #expect(!KeptRecordVersion.timestamp(milliseconds).isEmpty)
  }
}
