/// How many colours a terminal shows; themes are reduced to it rather than discarded.
public enum ColorCapability: Int, Sendable, Hashable, Comparable {
  /// No colour (NO_COLOR, TERM=dumb, a monochrome terminal): attributes only.
  case none = 0
  /// The 16 ANSI colours.
  case ansi16 = 16
  /// 256 indexed colours.
  case indexed256 = 256
  /// 24-bit colour.
  case truecolor = 16_777_216

  public static func < (left: ColorCapability, right: ColorCapability) -> Bool {
    left.rawValue < right.rawValue
  }
}
