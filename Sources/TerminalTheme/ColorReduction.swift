extension TerminalColor {
  /// The 16 ANSI colours as xterm draws them, the reference for the nearest one.
  static let ansiPalette: [(red: Int, green: Int, blue: Int)] = [
    (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
    (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
    (255, 0, 255), (0, 255, 255), (255, 255, 255),
  ]
  /// The six levels of each component in the 6x6x6 cube (indexed colours 16-231).
  static let cubeLevels = [0, 95, 135, 175, 215, 255]

  /// This colour as close as `capability` can show it: the nearest colour of the 256 (cube and
  /// grey ramp); of the 16 or the 8 by lightness and hue (see ``ansiIndex(red:green:blue:colors:)``);
  /// the terminal's own for ``ColorCapability/none``.
  public func reduced(to capability: ColorCapability) -> TerminalColor {
    switch (self, capability) {
    case (.terminalDefault, _), (_, .truecolor): return self
    case (_, .none): return .terminalDefault
    case (.ansi, .indexed256), (.ansi, .ansi16), (.indexed, .indexed256): return self
    case (.ansi(let index), .ansi8) where index < 8: return self
    case (.indexed(let index), .ansi16) where index < 16: return .ansi(index)
    case (.indexed(let index), .ansi8) where index < 8: return .ansi(index)
    case (.rgb(let red, let green, let blue), .indexed256):
      return .indexed(Self.nearest256(red: Int(red), green: Int(green), blue: Int(blue)))
    default:
      let (red, green, blue) = components ?? (0, 0, 0)
      return .ansi(Self.ansiIndex(red: red, green: green, blue: blue, colors: capability == .ansi8 ? 8 : 16))
    }
  }

  /// The red, green and blue this colour shows as on xterm (its palette for the ANSI and
  /// indexed colours); nil for the terminal's own.
  public var components: (Int, Int, Int)? {
    switch self {
    case .terminalDefault: nil
    case .ansi(let index): Self.components(ofIndexed: index & 15)
    case .indexed(let index): Self.components(ofIndexed: index)
    case .rgb(let red, let green, let blue): (Int(red), Int(green), Int(blue))
    }
  }

  /// The red, green and blue of indexed colour `index` as xterm defines them.
  static func components(ofIndexed index: UInt8) -> (Int, Int, Int) {
    let index = Int(index)
    if index < 16 { return ansiPalette[index] }
    if index >= 232 {
      let grey = 8 + 10 * (index - 232)
      return (grey, grey, grey)
    }
    let cube = index - 16
    return (cubeLevels[cube / 36], cubeLevels[cube / 6 % 6], cubeLevels[cube % 6])
  }

  /// How light a colour looks, 0 (black) to 255 (white): the Rec. 601 luma.
  static func luma(_ color: (Int, Int, Int)) -> Int {
    (299 * color.0 + 587 * color.1 + 114 * color.2) / 1000
  }

  /// How far apart two colours look, lightness counted twice and hue and saturation
  /// (the colour-difference components) `chromaWeight` times.
  static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int), chromaWeight: Int = 1) -> Int {
    let (lumaA, lumaB) = (luma(a), luma(b))
    let lightness = lumaA - lumaB
    let blue = (a.2 - lumaA) - (b.2 - lumaB)
    let red = (a.0 - lumaA) - (b.0 - lumaB)
    return 2 * lightness * lightness + chromaWeight * (blue * blue + red * red)
  }

  /// The ANSI colour (0-7, or 0-15 with `colors` 16) for a colour, chosen by lightness as well
  /// as hue, so that a light colour never becomes black:
  /// - a grey (red, green and blue within 48 of each other) becomes the ANSI grey nearest in
  ///   lightness: black or white with 8 colours, also bright black and bright white with 16;
  /// - any other colour takes the ANSI hue nearest to its own (red, yellow, green, cyan, blue,
  ///   magenta), with 16 colours in its plain or bright form, whichever is nearer in lightness.
  static func ansiIndex(red: Int, green: Int, blue: Int, colors: Int) -> UInt8 {
    let largest = max(red, green, blue)
    let smallest = min(red, green, blue)
    let chroma = largest - smallest
    if chroma < 48 {
      let greys: [UInt8] = colors == 8 ? [0, 7] : [0, 8, 7, 15]
      let target = luma((red, green, blue))
      return greys.min { abs(luma(ansiPalette[Int($0)]) - target) < abs(luma(ansiPalette[Int($1)]) - target) }
        ?? 0
    }
    var hue: Int
    if largest == red {
      hue = 60 * (green - blue) / chroma
    } else if largest == green {
      hue = 120 + 60 * (blue - red) / chroma
    } else {
      hue = 240 + 60 * (red - green) / chroma
    }
    if hue < 0 { hue += 360 }
    // The ANSI hues every 60 degrees, red again at 360.
    let hues: [(degrees: Int, index: UInt8)] = [
      (0, 1), (60, 3), (120, 2), (180, 6), (240, 4), (300, 5), (360, 1),
    ]
    let index = hues.min { abs($0.degrees - hue) < abs($1.degrees - hue) }?.index ?? 1
    guard colors == 16 else { return index }
    // The plain or the bright form, whichever is nearer in lightness.
    let target = luma((red, green, blue))
    let plain = abs(luma(ansiPalette[Int(index)]) - target)
    let bright = abs(luma(ansiPalette[Int(index) + 8]) - target)
    return bright < plain ? index + 8 : index
  }

  /// The nearest colour of the cube (16-231) or the grey ramp (232-255); the first 16 are left
  /// out because terminals redefine them.
  static func nearest256(red: Int, green: Int, blue: Int) -> UInt8 {
    func level(_ value: Int) -> Int {
      cubeLevels.indices.min { abs(cubeLevels[$0] - value) < abs(cubeLevels[$1] - value) } ?? 0
    }
    let cube = 16 + 36 * level(red) + 6 * level(green) + level(blue)
    let average = (red + green + blue) / 3
    let grey = 232 + min(max((average - 8 + 5) / 10, 0), 23)
    let target = (red, green, blue)
    let cubeDistance = squaredDistance(components(ofIndexed: UInt8(cube)), target)
    let greyDistance = squaredDistance(components(ofIndexed: UInt8(grey)), target)
    return UInt8(greyDistance < cubeDistance ? grey : cube)
  }

  static func squaredDistance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
    let (red, green, blue) = (a.0 - b.0, a.1 - b.1, a.2 - b.2)
    return red * red + green * green + blue * blue
  }
}
