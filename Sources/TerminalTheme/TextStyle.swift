/// How a role looks: what the terminal backend draws a cell with.
public struct TextStyle: Sendable, Hashable {
  public var foreground: TerminalColor
  public var background: TerminalColor
  public var attributes: TextAttributes

  public init(
    foreground: TerminalColor = .terminalDefault, background: TerminalColor = .terminalDefault,
    attributes: TextAttributes = []
  ) {
    self.foreground = foreground
    self.background = background
    self.attributes = attributes
  }

  /// The terminal's own colours, no attributes.
  public static let plain = TextStyle()
}
