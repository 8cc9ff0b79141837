import TerminalScreen

/// Where each part of the dashboard goes at a terminal size. The reducer uses it for page
/// sizes and scrolling, the views for drawing, so they agree.
public struct DashboardLayout: Sendable, Hashable {
  /// Below this the dashboard shows "terminal too small" instead of its panes.
  public static let minimumWidth = 50
  public static let minimumHeight = 12

  public let size: Rect
  public let status: Rect
  /// The mailbox tree, its title on the first row.
  public let tree: Rect
  /// The column between the tree and the right-hand panes.
  public let divider: Rect
  /// The contents pane, its title on the first row.
  public let contents: Rect
  /// The traffic pane, its title on the first row.
  public let traffic: Rect
  public let footer: Rect

  public init(width: Int, height: Int) {
    size = Rect(x: 0, y: 0, width: width, height: height)
    let (statusRow, rest) = size.splitTop(1)
    let (middle, footerRow) = rest.splitBottom(1)
    status = statusRow
    footer = footerRow
    let treeWidth = min(max(width * 2 / 5, 28), max(width - 20, 0))
    let (left, right) = middle.splitLeft(treeWidth)
    tree = left
    let (line, panes) = right.splitLeft(1)
    divider = line
    let contentsHeight = max(panes.height * 11 / 20, 3)
    let (top, bottom) = panes.splitTop(contentsHeight)
    contents = top
    traffic = bottom
  }

  public var isTooSmall: Bool { size.width < Self.minimumWidth || size.height < Self.minimumHeight }

  /// The body rows of a pane (without its title row).
  public func bodyHeight(of pane: Pane) -> Int {
    switch pane {
    case .mailboxes: return max(tree.height - 1, 0)
    case .contents: return max(contents.height - 2, 0)  // title and the view's header line
    case .traffic: return max(traffic.height - 2, 0)  // title and column headings
    }
  }
}
