// swift-tools-version:6.1
import PackageDescription

let package = Package(
  name: "wormhole-tui",
  products: [
    .library(name: "Wormhole", targets: ["Wormhole"]),
    .library(name: "KeyedArchive", targets: ["KeyedArchive"]),
    .executable(name: "wormhole-tui", targets: ["wormhole-tui"]),
    .executable(name: "wormhole-bench", targets: ["wormhole-bench"]),
  ],
  targets: [
    // Property lists (binary and XML) with the archive reference (UID) type kept.
    .target(name: "PropertyList"),
    // NSKeyedArchiver object graphs: a linear encoder and a resolver that never instantiates a class.
    .target(name: "KeyedArchive", dependencies: ["PropertyList"]),
    // The I/O-free vocabulary of the on-disk contract, shared by the library, the model and the views.
    .target(name: "WormholeVocabulary", dependencies: ["KeyedArchive"]),
    // A thin, safe wrapper over Linux inotify: the only code that touches it.
    .target(name: "Inotify"),
    // The wormhole library: mailboxes, notifications, the traffic journal, transiting types.
    .target(name: "Wormhole", dependencies: ["WormholeVocabulary", "KeyedArchive", "Inotify"]),
    // The live mailbox model: events in, state out, through a pure reducer (no I/O).
    .target(name: "MailboxModel", dependencies: ["WormholeVocabulary", "Wormhole", "KeyedArchive"]),
    // Watches wormhole directories with inotify and feeds the model; the operations on mailboxes.
    .target(name: "MailboxWatcher", dependencies: ["MailboxModel", "Wormhole", "KeyedArchive", "Inotify"]),
    .executableTarget(
      name: "wormhole-tui",
      dependencies: ["WormholeVocabulary", "Wormhole", "KeyedArchive", "MailboxModel", "MailboxWatcher"]),
    .executableTarget(
      name: "wormhole-bench", dependencies: ["Wormhole", "KeyedArchive", "Inotify", "MailboxModel", "MailboxWatcher"]),
    .testTarget(name: "PropertyListTests", dependencies: ["PropertyList"]),
    .testTarget(name: "KeyedArchiveTests", dependencies: ["KeyedArchive"], exclude: ["Fixtures", "Golden"]),
    .testTarget(name: "WormholeVocabularyTests", dependencies: ["WormholeVocabulary"]),
    .testTarget(name: "WormholeTests", dependencies: ["Wormhole", "KeyedArchive"]),
    .testTarget(name: "MailboxModelTests", dependencies: ["MailboxModel", "Wormhole", "KeyedArchive"]),
    .testTarget(name: "MailboxWatcherTests", dependencies: ["MailboxWatcher", "MailboxModel", "Wormhole", "KeyedArchive", "Inotify"]),
    // Runs the built `wormhole-tui` as a second process; the dependency makes `swift test` build it.
    .testTarget(name: "CommandLineTests", dependencies: ["Wormhole", "KeyedArchive", "wormhole-tui"]),
  ]
)
