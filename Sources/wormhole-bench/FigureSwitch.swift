import Foundation

/// The figures of a group that its environment switch names (`WORMHOLE_BENCH_BROKER=session,bridge`):
/// all of them when the variable is unset or empty; a name that is not a figure of the group is
/// refused with the names it has, so a typo never runs nothing in silence. A group measures the
/// figures selected with an exhaustive `switch`, so a figure added to its cases cannot go unmeasured.
protocol BenchFigure: RawRepresentable<String>, CaseIterable, Hashable {
  /// The environment variable that selects among the group's figures.
  static var environmentSwitch: String { get }
}

extension BenchFigure {
  /// The figures the group's switch names (comma-separated for several), each once, in the
  /// order the group declares them (the order they run in).
  static func selected() throws -> [Self] {
    let value = ProcessInfo.processInfo.environment[environmentSwitch]
    guard let value, !value.isEmpty else { return Array(allCases) }
    var figures: Set<Self> = []
    for name in value.split(separator: ",") {
      guard let figure = Self(rawValue: String(name)) else {
        throw BenchmarkFailure(
          "\(environmentSwitch): unknown figure \(name); figures: \(allCases.map(\.rawValue).joined(separator: ", "))"
        )
      }
      figures.insert(figure)
    }
    return allCases.filter(figures.contains)
  }
}
