import Testing
import WormholeVocabulary

@testable import wormhole_tui

/// `dump --broker`'s columns from a mailbox payload, which anyone on the broker can forge: a
/// count no bridge writes (negative, wrong type) is not printed as if a bridge had.
@Suite struct FleetDumpRowTests {
  @Test func aNegativeSizeOrVersionCountIsNotPrinted() {
    let row = FleetDump.row(
      "b", payload: #"{"mailbox":{"bytes":-5,"versions":-3,"summary":"s","last_writer":"app"}}"#)
    #expect(row == "b 0B v0 - app s", "\(row)")
  }

  @Test func theBridgesCountsArePrinted() {
    let row = FleetDump.row(
      "b", payload: #"{"mailbox":{"bytes":261,"versions":2,"summary":"s","last_writer":"app"}}"#)
    #expect(row == "b 261B v2 - app s", "\(row)")
  }
}
