import DeviceSession
import KeyedArchive

/// Pair names and paths as a terminal may show them: through `DisplayText`, always.
public enum PairDisplay {
  /// The name as one column: plain as it is, anything else quoted and escaped.
  public static func name(_ name: PairName) -> String { DisplayText.field(name.text) }

  /// Any text that came from the user or the disk, as one column.
  public static func field(_ text: String) -> String { DisplayText.field(text) }

  /// A message that quotes names of its own, with only what a terminal would act on escaped.
  public static func escaped(_ text: String) -> String { DisplayText.escaped(text) }

  static func path(_ path: String) -> String { DisplayText.field(path) }
}
