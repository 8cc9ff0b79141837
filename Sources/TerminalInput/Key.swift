/// A key press, decoded from the terminal (placeholder; the backend branch defines the full type).
public enum Key: Sendable, Hashable {
  case character(Character)
  case enter, escape, tab, backTab, up, down, left, right, pageUp, pageDown, home, end, delete, backspace
  case function(Int)
  case control(Character)
}
