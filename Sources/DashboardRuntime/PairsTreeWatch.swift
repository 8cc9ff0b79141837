import Glibc
import Inotify

/// inotify watches on a home's pair tree, for ``PairsSource``: the home (for `pairs` to
/// appear), `<home>/pairs`, each pair's directory, each device's directory and its `outbox`.
/// What a device writes there (its context files, its run lock's pid, its link's socket, its
/// queue's log) is an event on the inotify descriptor; the source reads the store again then.
///
/// Only touched on the source's queue (hence `@unchecked Sendable`).
final class PairsTreeWatch: @unchecked Sendable {
  let inotify: Inotify
  private let home: String

  /// The changes in a directory that may change what the pairs branch shows.
  private static let mask: InotifyMask = [
    .modify, .closeWrite, .movedFrom, .movedTo, .create, .delete, .onlyDirectory,
  ]

  /// Watches `home`'s pair tree; `nil` when inotify is not available (the source then polls).
  init?(home: String) {
    guard let inotify = try? Inotify() else { return nil }
    self.inotify = inotify
    self.home = home
  }

  /// Adds a watch to every directory of the tree (one already watched keeps its watch): pairs
  /// and devices made since the last call are watched from now on. A removed directory's watch
  /// went with it.
  func update() {
    var present = [home, home + "/pairs"]
    for pair in Self.directories(in: home + "/pairs") {
      present.append(pair)
      for role in Self.directories(in: pair) {
        present.append(role)
        present.append(role + "/outbox")
      }
    }
    for path in present { _ = try? inotify.addWatch(path, mask: Self.mask) }
  }

  /// Reads and discards what is queued: any event means "read the store again".
  func drain() -> Bool {
    guard let events = try? inotify.readEvents() else { return true }
    return !events.isEmpty
  }

  /// The subdirectories of `path` (not following links), as paths; none when it cannot be read.
  private static func directories(in path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var found: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard name != ".", name != ".." else { continue }
      let child = path + "/" + name
      var status = stat()
      if lstat(child, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR { found.append(child) }
    }
    return found
  }
}
