/// The status messages of the session, newest last, so that one cut at the terminal's width can
/// still be read in full (`L`, `:messages`). Bounded: the oldest go first.
public struct MessageLog: Sendable {
  /// Messages kept at most.
  public static let capacity = 200

  /// One message, as the status line showed it.
  public struct Entry: Sendable, Hashable {
    /// When it was shown, in milliseconds since 1970.
    public var milliseconds: Int64
    /// The text, already escaped for the terminal.
    public var text: String
    public var isError: Bool
  }

  /// The messages, oldest first, at most ``capacity``.
  public private(set) var entries: [Entry] = []
  /// Messages dropped from the front to respect the capacity.
  public private(set) var droppedCount = 0

  init() {}

  mutating func append(_ text: String, isError: Bool, at milliseconds: Int64) {
    entries.append(Entry(milliseconds: milliseconds, text: text, isError: isError))
    if entries.count > Self.capacity {
      entries.removeFirst(entries.count - Self.capacity)
      droppedCount += 1
    }
  }

  /// The log as rows of at most `width` columns, oldest first: each message after its time,
  /// wrapped, so none is cut.
  func rows(width: Int) -> [(text: String, isError: Bool)] {
    var rows: [(text: String, isError: Bool)] = []
    let indent = String(repeating: " ", count: 13)
    for entry in entries {
      let lines = OverlayView.wrap(entry.text, width: max(width - 13, 8))
      for (index, line) in lines.enumerated() {
        rows.append(
          ((index == 0 ? Formatting.clock(entry.milliseconds) + " " : indent) + line, entry.isError))
      }
    }
    return rows
  }
}
