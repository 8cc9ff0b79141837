/// A rectangle of cells: a pane, a column, a form.
public struct Rect: Sendable, Hashable, CustomStringConvertible {
  public var x: Int
  public var y: Int
  public var width: Int
  public var height: Int

  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = max(width, 0)
    self.height = max(height, 0)
  }

  public var isEmpty: Bool { width == 0 || height == 0 }
  public var maxX: Int { x + width }
  public var maxY: Int { y + height }

  /// The part of both.
  public func intersection(_ other: Rect) -> Rect {
    let left = max(x, other.x)
    let top = max(y, other.y)
    let right = min(maxX, other.maxX)
    let bottom = min(maxY, other.maxY)
    return Rect(x: left, y: top, width: right - left, height: bottom - top)
  }

  /// The top `rows` rows and the rest.
  public func splitTop(_ rows: Int) -> (top: Rect, rest: Rect) {
    let rows = min(max(rows, 0), height)
    return (
      Rect(x: x, y: y, width: width, height: rows),
      Rect(x: x, y: y + rows, width: width, height: height - rows)
    )
  }

  /// The bottom `rows` rows and the rest.
  public func splitBottom(_ rows: Int) -> (rest: Rect, bottom: Rect) {
    let rows = min(max(rows, 0), height)
    return (
      Rect(x: x, y: y, width: width, height: height - rows),
      Rect(x: x, y: maxY - rows, width: width, height: rows)
    )
  }

  /// The left `columns` columns and the rest.
  public func splitLeft(_ columns: Int) -> (left: Rect, rest: Rect) {
    let columns = min(max(columns, 0), width)
    return (
      Rect(x: x, y: y, width: columns, height: height),
      Rect(x: x + columns, y: y, width: width - columns, height: height)
    )
  }

  /// A rectangle of `width` by `height` centred in this one (clipped to it).
  public func centered(width: Int, height: Int) -> Rect {
    let width = min(width, self.width)
    let height = min(height, self.height)
    return Rect(
      x: x + (self.width - width) / 2, y: y + (self.height - height) / 2, width: width, height: height)
  }

  public var description: String { "\(x),\(y) \(width)x\(height)" }
}
