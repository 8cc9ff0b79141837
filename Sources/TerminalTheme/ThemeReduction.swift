extension Theme {
  /// Text stays at least this far in lightness (luma, 0-255) from its background once reduced.
  static let minimumTextContrast = 50
  /// A background the theme sets at least this far from the terminal's own stays set apart once
  /// reduced (a selection bar, a status line).
  static let minimumBarContrast = 30

  /// This theme as a terminal with `capability` shows it.
  ///
  /// Colours are reduced to the nearest the terminal has (truecolor -> 256 -> 16 -> 8, see
  /// ``TerminalColor/reduced(to:)``), then kept legible: a background the theme sets apart from
  /// the terminal's that would merge into it takes the nearest colour that stays apart, and text
  /// that would come too close to its background in lightness takes the nearest colour that
  /// does not. The terminal's own background is taken as the theme's `default` background, or,
  /// when that is the terminal's, as dark unless the theme's text colours are dark.
  ///
  /// Reduce the theme as loaded, once: the terminal's background is inferred from the
  /// original colours.
  ///
  /// For ``ColorCapability/none`` colours are removed with the attributes kept and a role set
  /// apart only by its background (a selection bar) drawn reversed.
  public func reduced(to capability: ColorCapability) -> Theme {
    guard capability < .truecolor else { return self }
    var reduced = self
    if capability == .none {
      let defaultBackground = style(for: .plain).background
      for (role, style) in styles {
        var style = style
        if role != .plain, style.background != .terminalDefault, style.background != defaultBackground {
          style.attributes.insert(.reverse)
        }
        style.foreground = .terminalDefault
        style.background = .terminalDefault
        reduced.styles[role] = style
      }
      return reduced
    }
    let terminal = terminalColors
    let palette = Self.palette(for: capability)
    for (role, style) in styles {
      reduced.styles[role] = Self.legible(style, capability: capability, palette: palette, terminal: terminal)
    }
    return reduced
  }

  /// The colours a terminal of `capability` has, as themes name them.
  static func palette(for capability: ColorCapability) -> [TerminalColor] {
    switch capability {
    case .ansi8: (0..<8).map { .ansi($0) }
    case .ansi16: (0..<16).map { .ansi($0) }
    default: (16...255).map { .indexed(UInt8($0)) }
    }
  }

  /// What the terminal's own foreground and background are taken to be for this theme.
  var terminalColors: (foreground: (Int, Int, Int), background: (Int, Int, Int)) {
    let base = style(for: .plain)
    let background: (Int, Int, Int)
    if let given = base.background.components {
      background = given
    } else {
      // Text written on the terminal's own background tells whether the theme expects it light.
      let lumas = styles.values
        .filter { $0.background == .terminalDefault && !$0.attributes.contains(.reverse) }
        .compactMap { $0.foreground.components.map(TerminalColor.luma) }
      let expectsLight = !lumas.isEmpty && lumas.reduce(0, +) < 128 * lumas.count
      background = expectsLight ? (255, 255, 255) : (0, 0, 0)
    }
    let foreground =
      base.foreground.components ?? (TerminalColor.luma(background) < 128 ? (229, 229, 229) : (0, 0, 0))
    return (foreground, background)
  }

  /// `style` reduced to `capability`, its background kept apart from the terminal's when the
  /// theme set it apart, and its text kept apart from its background.
  static func legible(
    _ style: TextStyle, capability: ColorCapability, palette: [TerminalColor],
    terminal: (foreground: (Int, Int, Int), background: (Int, Int, Int))
  ) -> TextStyle {
    var reduced = style
    reduced.foreground = style.foreground.reduced(to: capability)
    reduced.background = style.background.reduced(to: capability)
    // A reversed style shows its foreground as the background.
    let reverse = style.attributes.contains(.reverse)
    let text = reverse ? \TextStyle.background : \TextStyle.foreground
    let ground = reverse ? \TextStyle.foreground : \TextStyle.background
    func shown(_ style: TextStyle, _ slot: WritableKeyPath<TextStyle, TerminalColor>) -> (Int, Int, Int) {
      style[keyPath: slot].components
        ?? (slot == \TextStyle.foreground ? terminal.foreground : terminal.background)
    }
    let terminalLuma = TerminalColor.luma(terminal.background)
    func apart(_ color: (Int, Int, Int), _ other: Int, by minimum: Int) -> Bool {
      abs(TerminalColor.luma(color) - other) >= minimum
    }
    if apart(shown(style, ground), terminalLuma, by: minimumBarContrast),
      !apart(shown(reduced, ground), terminalLuma, by: minimumBarContrast),
      let color = nearest(
        to: shown(style, ground), in: palette, where: { apart($0, terminalLuma, by: minimumBarContrast) })
    {
      reduced[keyPath: ground] = color
    }
    let groundLuma = TerminalColor.luma(shown(reduced, ground))
    if !apart(shown(reduced, text), groundLuma, by: minimumTextContrast),
      let color = nearest(
        to: shown(style, text), in: palette, where: { apart($0, groundLuma, by: minimumTextContrast) })
    {
      reduced[keyPath: text] = color
    }
    return reduced
  }

  /// The colour of `palette` that looks nearest to `target` among those `allowed`, hue and
  /// saturation weighed heavily so that a grey stays grey.
  static func nearest(
    to target: (Int, Int, Int), in palette: [TerminalColor], where allowed: ((Int, Int, Int)) -> Bool
  ) -> TerminalColor? {
    var best: (color: TerminalColor, distance: Int)?
    for color in palette {
      guard let components = color.components, allowed(components) else { continue }
      let distance = TerminalColor.distance(components, target, chromaWeight: 4)
      if best.map({ distance < $0.distance }) ?? true { best = (color, distance) }
    }
    return best?.color
  }
}
