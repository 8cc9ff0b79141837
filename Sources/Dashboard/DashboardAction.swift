/// What a key asks for. The ``Keymap`` binds keys to these; `:` commands name some of them.
public enum DashboardAction: String, Sendable, Hashable, CaseIterable {
  case quit, help, back
  case nextPane, previousPane
  case down, up, pageDown, pageUp, halfPageDown, halfPageUp, top, bottom
  case toggle
  case filter, command
  case pass, clear, clearAll, replay
  case sort, freeze, copy, cycleTheme, nextView, mark
}
