/// Numbers as a row of block characters, lowest to highest.
public enum Sparkline {
  static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

  /// The last `width` values as blocks scaled between their minimum and maximum.
  public static func text(_ values: [Double], width: Int) -> String {
    let shown = values.suffix(max(width, 0))
    guard let low = shown.min(), let high = shown.max() else { return "" }
    let span = high - low
    return String(
      shown.map { value in
        guard span > 0, span.isFinite else { return blocks[value > 0 ? 3 : 0] }
        let level = Int(((value - low) / span * Double(blocks.count - 1)).rounded())
        return blocks[min(max(level, 0), blocks.count - 1)]
      })
  }
}
