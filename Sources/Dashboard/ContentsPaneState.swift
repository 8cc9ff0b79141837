/// The contents pane's own state: which view, the cursor and scroll, the folded branches of
/// the tree view, the version the history and diff views are on, and the version marked for a
/// diff.
///
/// It holds no model. The lines it moves over are built from the model by the dashboard and
/// given to ``update(_:)`` in the messages that need them (their count, or the lines), so the
/// same state can follow the live model or a recording.
public struct ContentsPaneState: Sendable {
  /// What changes the contents pane.
  public enum Message: Sendable {
    /// Another node was selected: start again at the top, unfolded, on the newest version.
    case reset
    /// Keeps the cursor on one of `lineCount` lines and in view of `visibleRows` rows.
    case clamp(lineCount: Int, visibleRows: Int)
    /// Puts the cursor on a line (clamped as ``clamp(lineCount:visibleRows:)`` does).
    case moveCursor(to: Int, lineCount: Int, visibleRows: Int)
    /// Shows the next view; the history view comes back to its version. The lines change:
    /// clamp with the new ones.
    case nextView
    /// Folds or unfolds the branch under the cursor, when it is one, of the lines shown. The
    /// lines change: clamp with the new ones.
    case toggleBranch(lines: [ContentLine])
    /// Marks a version for the diff view, or removes the mark when it is on that version.
    case toggleMark(serial: UInt64)
  }

  public private(set) var view: ContentsView = .tree
  public private(set) var cursor = 0
  /// The first line shown.
  public private(set) var scroll = 0
  /// Paths of the tree view's folded branches.
  public private(set) var collapsedPaths: Set<String> = []
  /// The version the history and diff views are on (0 is the newest).
  public private(set) var historyCursor = 0
  /// The history version marked for a diff (`m`).
  public private(set) var markedSerial: UInt64?

  /// The tree view at its top.
  public init() {}

  /// Applies `message` to the pane.
  public mutating func update(_ message: Message) {
    switch message {
    case .reset:
      cursor = 0
      scroll = 0
      historyCursor = 0
      collapsedPaths = []
      markedSerial = nil
    case .clamp(let count, let visibleRows): clamp(lineCount: count, visibleRows: visibleRows)
    case .moveCursor(let row, let count, let visibleRows):
      cursor = row
      clamp(lineCount: count, visibleRows: visibleRows)
    case .nextView:
      view = view.next
      cursor = view == .history ? historyCursor : 0
      scroll = 0
    case .toggleBranch(let lines):
      guard lines.indices.contains(cursor), lines[cursor].isBranch, let path = lines[cursor].path else {
        return
      }
      if collapsedPaths.contains(path) { collapsedPaths.remove(path) } else { collapsedPaths.insert(path) }
    case .toggleMark(let serial): markedSerial = markedSerial == serial ? nil : serial
    }
  }

  private mutating func clamp(lineCount count: Int, visibleRows: Int) {
    cursor = min(max(cursor, 0), max(count - 1, 0))
    let visible = max(visibleRows, 1)
    if cursor < scroll { scroll = cursor }
    if cursor >= scroll + visible { scroll = cursor - visible + 1 }
    scroll = max(min(scroll, max(count - visible, 0)), 0)
    if view == .history { historyCursor = cursor }
  }
}
