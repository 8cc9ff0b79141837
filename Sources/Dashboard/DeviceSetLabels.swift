import WormholeVocabulary

/// What the dashboard shows of a simulator device set (`wormhole-tui --device-set DIR`): a label
/// for each application-group container, used instead of its UDID path in the tree, and the
/// set's summary, pairs and notes for the message log.
///
/// The dashboard does not read device sets: the caller builds this from one (the executable,
/// with `SimulatorDeviceSet`), so the module stays free of I/O.
public struct DeviceSetLabels: Sendable, Hashable {
  /// One group container and how the tree names it.
  public struct Container: Sendable, Hashable {
    /// The container's directory (the watched root).
    public var path: FileName
    /// Its name in the tree, not yet escaped: device, runtime, pair and group, such as
    /// `Ana's iPhone · iOS 17.2 · booted ⇄ Ana's Watch · group.com.example.app`.
    public var label: String

    public init(path: FileName, label: String) {
      self.path = path
      self.label = label
    }
  }

  /// The set's directory: the dashboard's root, in its header, instead of every container.
  public var path: String
  /// The containers, in the set's device order.
  public var containers: [Container]
  /// One line about the set (its path, counts, whether it is read-only), already escaped.
  public var summary: String
  /// The pairs, one line each, already escaped.
  public var pairs: [String]
  /// The set's notes (what was missing or damaged), one line each, already escaped.
  public var notes: [String]

  public init(
    path: String, containers: [Container] = [], summary: String = "", pairs: [String] = [],
    notes: [String] = []
  ) {
    self.path = path
    self.containers = containers
    self.summary = summary
    self.pairs = pairs
    self.notes = notes
  }

  /// How the tree names the wormhole directory `directory`: its container's label, followed by
  /// the path below the container when the directory is a subdirectory of it; `nil` for a
  /// directory outside every container.
  public func label(for directory: FileName) -> String? {
    let bytes = directory.bytes
    for container in containers {
      let prefix = container.path.bytes
      if bytes == prefix { return container.label }
      guard bytes.count > prefix.count + 1, bytes.starts(with: prefix),
        bytes[prefix.count] == UInt8(ascii: "/")
      else { continue }
      return container.label + "/" + FileName(bytes: bytes[(prefix.count + 1)...]).lossyText
    }
    return nil
  }

  /// The containers none of `directories` is or lies below: the groups in which no wormhole
  /// directory (no mailbox) was found.
  public func containersWithout(_ directories: some Sequence<FileName>) -> [FileName] {
    let paths = Set(containers.map(\.path))
    var holding = Set<FileName>()
    for directory in directories {
      // The directory itself, then each of its ancestors: O(depth), not O(containers).
      var bytes = directory.bytes[...]
      while !bytes.isEmpty {
        let candidate = FileName(bytes: bytes)
        if paths.contains(candidate) {
          holding.insert(candidate)
          break
        }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { break }
        bytes = bytes[..<slash]
      }
    }
    var listed = Set<FileName>()
    return containers.map(\.path).filter { !holding.contains($0) && listed.insert($0).inserted }
  }

  /// `directories` in the order the tree lists them: by label, without regard to case, then as
  /// written, then by path (so two containers labelled alike keep one order); a container's
  /// subdirectories follow it. Directories outside every container come last, by path.
  public func ordered(_ directories: some Sequence<FileName>) -> [FileName] {
    let keyed = directories.map { path in
      let label = label(for: path)
      return (path: path, isLabelled: label != nil, folded: label?.lowercased() ?? "", label: label ?? "")
    }
    return keyed.sorted { first, second in
      if first.isLabelled != second.isLabelled { return first.isLabelled }
      if first.folded != second.folded { return first.folded < second.folded }
      if first.label != second.label { return first.label < second.label }
      return first.path < second.path
    }.map(\.path)
  }
}
