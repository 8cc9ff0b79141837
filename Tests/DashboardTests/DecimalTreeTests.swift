import ArchivedValues
import Dashboard
import Testing
import WormholeVocabulary

/// The contents pane shows an `NSDecimalNumber` as the number it is, as `read` does: a number
/// row in the tree (with a sparkline value), the exact text in the JSON view, a changed amount
/// in the diff.
@Suite struct DecimalTreeTests {
  /// `{"price": <decimal>}`, the decimal `mantissa` × 10^`exponent`.
  private static func price(_ mantissa: UInt16, exponent: Int8, negative: Bool = false) -> ArchivedValue {
    let decimal = ArchivedDecimal(
      words: [mantissa], exponent: exponent, isNegative: negative, isCompact: true)
    return .dictionary([ArchivedEntry(key: .string("price"), value: decimal.map { .decimal($0) } ?? .null)])
  }

  private func texts(_ lines: [ContentLine]) -> [String] {
    lines.map { String(repeating: " ", count: $0.indent) + $0.pieces.map(\.text).joined() }
  }

  @Test func theTreeShowsTheNumberAsANumber() throws {
    var harness = DashboardHarness(
      width: 140, mailboxes: ["cart": Self.price(12345, exponent: -2, negative: true)])
    harness.type("<Tab>")
    let lines = harness.state.contentsLines()
    let row = try #require(lines.first { $0.path == "root.price" }, "\(texts(lines))")
    #expect(row.pieces.map(\.text).joined().hasSuffix("price: -123.45"), "\(texts(lines))")
    #expect(row.pieces.last?.role == "contents.number")
    #expect(row.number == -123.45)
    #expect(harness.shows("price: -123.45"), "\(harness)")
  }

  @Test func theJSONViewKeepsTheExactText() {
    var harness = DashboardHarness(mailboxes: ["cart": Self.price(12345, exponent: -2)])
    harness.type("<Tab>v")
    #expect(harness.state.contentsView == .json)
    let lines = texts(harness.state.contentsLines())
    #expect(lines.contains("    \"value\": \"123.45\""), "\(lines)")
  }

  @Test func theDiffShowsTheOldAndNewAmounts() {
    var harness = DashboardHarness(width: 140, mailboxes: ["cart": Self.price(12345, exponent: -2)])
    harness.changeMailbox("cart", to: Self.price(12346, exponent: -2))
    harness.type("<Tab>vvvv")
    #expect(harness.shows("~ root.price: 123.45 → 123.46"), "\(harness)")
  }
}
