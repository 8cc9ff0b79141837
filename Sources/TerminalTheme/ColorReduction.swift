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
  /// grey ramp) or of the 16, the terminal's own for ``ColorCapability/none``.
  public func reduced(to capability: ColorCapability) -> TerminalColor {
    switch (self, capability) {
    case (.terminalDefault, _), (_, .truecolor): return self
    case (_, .none): return .terminalDefault
    case (.ansi, _): return self
    case (.indexed(let index), .ansi16) where index < 16: return .ansi(index)
    case (.indexed, .indexed256): return self
    case (.indexed(let index), _):
      let (red, green, blue) = Self.components(ofIndexed: index)
      return .ansi(Self.nearest16(red: red, green: green, blue: blue))
    case (.rgb(let red, let green, let blue), .indexed256):
      return .indexed(Self.nearest256(red: Int(red), green: Int(green), blue: Int(blue)))
    case (.rgb(let red, let green, let blue), _):
      return .ansi(Self.nearest16(red: Int(red), green: Int(green), blue: Int(blue)))
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

  static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
    let (red, green, blue) = (a.0 - b.0, a.1 - b.1, a.2 - b.2)
    return red * red + green * green + blue * blue
  }

  /// The nearest of the 16 ANSI colours.
  static func nearest16(red: Int, green: Int, blue: Int) -> UInt8 {
    var best = 0
    for index in 1..<16
    where distance(ansiPalette[index], (red, green, blue)) < distance(ansiPalette[best], (red, green, blue)) {
      best = index
    }
    return UInt8(best)
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
    let cubeDistance = distance(components(ofIndexed: UInt8(cube)), target)
    let greyDistance = distance(components(ofIndexed: UInt8(grey)), target)
    return UInt8(greyDistance < cubeDistance ? grey : cube)
  }
}

extension Theme {
  /// This theme as a terminal with `capability` shows it: colours reduced to the nearest it has
  /// (truecolor -> 256 -> 16), or, for ``ColorCapability/none``, removed with the attributes
  /// kept and a role set apart only by its background (a selection bar) drawn reversed.
  public func reduced(to capability: ColorCapability) -> Theme {
    guard capability < .truecolor else { return self }
    let defaultBackground = style(for: .plain).background
    var reduced = self
    for (role, style) in styles {
      var style = style
      if capability == .none, role != .plain, style.background != .terminalDefault,
        style.background != defaultBackground
      {
        style.attributes.insert(.reverse)
      }
      style.foreground = style.foreground.reduced(to: capability)
      style.background = style.background.reduced(to: capability)
      reduced.styles[role] = style
    }
    return reduced
  }
}
