import TerminalTheme

/// How the backend turns a ``TerminalColor`` into an ncurses colour number, decided once from
/// what the terminal description and the environment say.
enum ColorMode: Sendable, Hashable {
  /// No colour: attributes only (`NO_COLOR`, or a terminal without colours).
  case none
  /// Eight colours: the bright ANSI colours fold onto the plain ones.
  case ansi8
  /// The sixteen ANSI colours.
  case ansi16
  /// 256 indexed colours.
  case indexed256
  /// A direct-colour terminal description (`COLORS` is 2^24, as with `TERM=xterm-direct`):
  /// colour numbers are `0xRRGGBB`, except that 0-7 are the ANSI colours.
  case direct

  /// The mode for a terminal with `colors` colours, as reported by ncurses (0 when it has
  /// none), given `NO_COLOR`'s value. `NO_COLOR` set and not empty turns colour off.
  static func detect(colors: Int, noColor: String?) -> ColorMode {
    if let noColor, !noColor.isEmpty { return .none }
    switch colors {
    case 16_777_216...: return .direct
    case 256...: return .indexed256
    case 16...: return .ansi16
    case 8...: return .ansi8
    default: return .none
    }
  }

  /// What a theme may be reduced to for this terminal.
  var capability: ColorCapability {
    switch self {
    case .none: return .none
    case .ansi8, .ansi16: return .ansi16
    case .indexed256: return .indexed256
    case .direct: return .truecolor
    }
  }

  /// The ncurses colour number for `color`: -1 for the terminal's default, otherwise the
  /// nearest colour this mode can show.
  func number(for color: TerminalColor) -> Int32 {
    switch (self, color) {
    case (.none, _), (_, .terminalDefault): return -1
    case (.ansi8, .ansi(let index)): return Int32(index & 7)
    case (.ansi8, _): return Int32(ColorMode.nearestANSI(to: ColorMode.rgb(of: color)) & 7)
    case (.ansi16, .ansi(let index)): return Int32(index & 15)
    case (.ansi16, _): return Int32(ColorMode.nearestANSI(to: ColorMode.rgb(of: color)))
    case (.indexed256, .ansi(let index)): return Int32(index & 15)
    case (.indexed256, .indexed(let index)): return Int32(index)
    case (.indexed256, .rgb(let red, let green, let blue)):
      return Int32(ColorMode.nearestIndexed(red: red, green: green, blue: blue))
    case (.direct, .ansi(let index)) where index < 8: return Int32(index)
    case (.direct, _):
      let (red, green, blue) = ColorMode.rgb(of: color)
      // Numbers below 8 mean the ANSI colours in direct mode: nudge a near-black blue up.
      return max(Int32(red) << 16 | Int32(green) << 8 | Int32(blue), 8)
    }
  }

  /// xterm's values for the sixteen ANSI colours.
  static let ansiPalette: [(UInt8, UInt8, UInt8)] = [
    (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
    (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
    (255, 0, 255), (0, 255, 255), (255, 255, 255),
  ]

  /// The levels of the 6x6x6 colour cube of the 256-colour palette.
  static let cubeLevels: [UInt8] = [0, 95, 135, 175, 215, 255]

  /// The red, green and blue of `color` as xterm shows it (default counts as black).
  static func rgb(of color: TerminalColor) -> (UInt8, UInt8, UInt8) {
    switch color {
    case .terminalDefault: return (0, 0, 0)
    case .rgb(let red, let green, let blue): return (red, green, blue)
    case .ansi(let index): return ansiPalette[Int(index & 15)]
    case .indexed(let index):
      switch index {
      case 0..<16: return ansiPalette[Int(index)]
      case 16..<232:
        let cube = Int(index) - 16
        return (cubeLevels[cube / 36], cubeLevels[cube / 6 % 6], cubeLevels[cube % 6])
      default:
        let level = UInt8(8 + 10 * (Int(index) - 232))
        return (level, level, level)
      }
    }
  }

  /// The index (0-15) of the ANSI colour nearest to `rgb`.
  static func nearestANSI(to rgb: (UInt8, UInt8, UInt8)) -> Int {
    var best = 0
    var bestDistance = Int.max
    for (index, candidate) in ansiPalette.enumerated() {
      let distance = squaredDistance(rgb, candidate)
      if distance < bestDistance {
        best = index
        bestDistance = distance
      }
    }
    return best
  }

  /// The 256-palette index (16-255, the cube or the grey ramp) nearest to the colour.
  static func nearestIndexed(red: UInt8, green: UInt8, blue: UInt8) -> Int {
    func level(_ value: UInt8) -> Int {
      var best = 0
      for (index, candidate) in cubeLevels.enumerated()
      where abs(Int(candidate) - Int(value)) < abs(Int(cubeLevels[best]) - Int(value)) {
        best = index
      }
      return best
    }
    let cube = 16 + 36 * level(red) + 6 * level(green) + level(blue)
    let average = (Int(red) + Int(green) + Int(blue)) / 3
    let grey = 232 + min(max((average - 8 + 5) / 10, 0), 23)
    let target = (red, green, blue)
    let cubeDistance = squaredDistance(target, rgb(of: .indexed(UInt8(cube))))
    let greyDistance = squaredDistance(target, rgb(of: .indexed(UInt8(grey))))
    return greyDistance < cubeDistance ? grey : cube
  }

  static func squaredDistance(_ left: (UInt8, UInt8, UInt8), _ right: (UInt8, UInt8, UInt8)) -> Int {
    let red = Int(left.0) - Int(right.0)
    let green = Int(left.1) - Int(right.1)
    let blue = Int(left.2) - Int(right.2)
    return red * red + green * green + blue * blue
  }
}
