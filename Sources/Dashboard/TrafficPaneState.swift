import MailboxModel
import WormholeVocabulary

/// The traffic pane's own state: the selected entry (or following the newest), the filter and
/// the entries passing it.
///
/// It holds no model. Each ``update(_:traffic:)`` takes the model's traffic stream as input and
/// does no I/O, so the same state can follow the live model or a recording.
public struct TrafficPaneState: Sendable {
  /// What changes the traffic pane.
  public enum Message: Sendable {
    /// Entries were appended to the stream: those passing the filter join the filtered list.
    case appended([TrafficEntry])
    /// Entries left the front of the stream (its capacity): they leave the filtered list too.
    case droppedFromFront
    /// Shows only the entries passing the filter (`nil`: every entry); a selection it hides is
    /// dropped.
    case filter(PaneFilter?)
    /// Moves the selection by rows (negative: up); past the newest it follows the newest.
    case move(by: Int)
    /// Selects the oldest entry shown.
    case selectFirst
    /// Follows the newest entry.
    case follow
    /// Selects the entry on a body row (0 is the first), in the window the pane shows when it
    /// is `visibleRows` rows high.
    case selectShown(offset: Int, visibleRows: Int)
    /// Esc: drops the filter, or else the selection.
    case back
  }

  /// The selected entry; `nil` follows the newest.
  public private(set) var selection: UInt64?
  public private(set) var filter: PaneFilter?
  /// Entry identifiers passing ``filter``, oldest first.
  private(set) var filteredIdentifiers: [UInt64] = []

  /// A pane following the newest entry, unfiltered.
  public init() {}

  /// The identifiers of the rows shown, oldest first.
  public func identifiers(in traffic: [TrafficEntry]) -> [UInt64] {
    filter != nil ? filteredIdentifiers : traffic.map(\.id)
  }

  /// Applies `message` to the pane over `traffic`, the model's stream (oldest first).
  public mutating func update(_ message: Message, traffic: [TrafficEntry]) {
    switch message {
    case .appended(let entries):
      guard filter != nil else { return }
      filter?.continuePass()
      filteredIdentifiers += passing(entries)
    case .droppedFromFront:
      guard filter != nil, let first = traffic.first?.id else { return }
      if let index = filteredIdentifiers.firstIndex(where: { $0 >= first }), index > 0 {
        filteredIdentifiers.removeFirst(index)
      }
    case .filter(let filter):
      self.filter = filter
      filteredIdentifiers = []
      if filter != nil {
        self.filter?.beginPass()
        filteredIdentifiers = passing(traffic)
      }
      if let selection, !identifiers(in: traffic).contains(selection) { self.selection = nil }
    case .move(let delta):
      let identifiers = identifiers(in: traffic)
      guard !identifiers.isEmpty else { return }
      let current = selection.flatMap { identifiers.firstIndex(of: $0) } ?? identifiers.count
      let target = min(max(current + delta, 0), identifiers.count)
      selection = target >= identifiers.count ? nil : identifiers[target]
    case .selectFirst: selection = identifiers(in: traffic).first
    case .follow: selection = nil
    case .selectShown(let offset, let visible):
      let identifiers = identifiers(in: traffic)
      guard offset >= 0, !identifiers.isEmpty else { return }
      // The rows shown end at the selection (or the newest): the same window the view draws.
      let last =
        selection.flatMap { identifiers.lastIndex(of: $0) }.map {
          max($0, min(identifiers.count - 1, $0 + visible / 2))
        } ?? identifiers.count - 1
      let first = max(last - visible + 1, 0)
      if first + offset <= last { selection = identifiers[first + offset] }
    case .back:
      if filter != nil {
        filter = nil
        filteredIdentifiers = []
      } else {
        selection = nil
      }
    }
  }

  /// The identifiers of the entries passing ``filter``, in order, as part of its current pass
  /// (begun or continued by the caller): the one place the pane matches it.
  private mutating func passing(_ entries: [TrafficEntry]) -> [UInt64] {
    guard var filter else { return entries.map(\.id) }
    let passed = entries.filter { filter.admits(Self.text(of: $0)) }.map(\.id)
    self.filter = filter
    return passed
  }

  /// The text a traffic filter is matched against: what the row shows.
  static func text(of entry: TrafficEntry) -> String {
    [
      entry.kind.rawValue, entry.identifier.lossyText, entry.transiting ?? "", entry.sender ?? "",
      entry.error ?? "",
    ]
    .joined(separator: " ")
  }
}
