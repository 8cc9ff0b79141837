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
    // The screen as a value: styled cells, terminal widths, frame differences. No I/O.
    .target(name: "TerminalScreen"),
    // Themes: styles by role, colours reduced to what a terminal shows. No I/O but reading theme text.
    .target(name: "TerminalTheme", dependencies: ["TerminalScreen", "ShippedThemes"]),
    // The shipped theme files, embedded in the binary as bytes; Themes/ is their only source.
    .target(
      name: "ShippedThemes", path: "Themes",
      resources: [
        .embedInCode("dark.theme"), .embedInCode("light.theme"), .embedInCode("high-contrast.theme"),
        .embedInCode("colorblind.theme"),
      ]),
    // Key presses, mouse and resize as plain values, and the `<C-d>` key notation. No I/O.
    .target(name: "TerminalInput"),
    // ncursesw from Debian (apt libncurses-dev), as the terminal backend sees it.
    .systemLibrary(name: "CNcursesw", pkgConfig: "ncursesw", providers: [.apt(["libncurses-dev"])]),
    // Async-signal-safe signal handlers that put the terminal back, in C.
    .target(name: "CTerminalSignals"),
    // The only code that touches ncurses: draws screens, reads keys, restores the terminal.
    .target(
      name: "TerminalBackend",
      dependencies: ["CNcursesw", "CTerminalSignals", "TerminalInput", "TerminalScreen", "TerminalTheme"]),
    // The dashboard: state, the pure reducer, the keymap and the views (state -> screen). No I/O.
    .target(
      name: "Dashboard",
      dependencies: [
        "MailboxModel", "KeyedArchive", "WormholeVocabulary", "TerminalScreen", "TerminalInput",
      ]),
    // A thin, safe wrapper over Linux inotify: the only code that touches it.
    .target(name: "Inotify"),
    // The wormhole library: mailboxes, notifications, the traffic journal, transiting types.
    .target(name: "Wormhole", dependencies: ["WormholeVocabulary", "KeyedArchive", "Inotify"]),
    // The live mailbox model: events in, state out, through a pure reducer (no I/O).
    .target(name: "MailboxModel", dependencies: ["WormholeVocabulary", "KeyedArchive"]),
    // Watches wormhole directories with inotify and feeds the model; the operations on mailboxes.
    .target(
      name: "MailboxWatcher",
      dependencies: ["MailboxModel", "WormholeVocabulary", "Wormhole", "KeyedArchive", "Inotify"]),
    // Paired simulated devices, I/O-free: values, frames, the link protocol, WatchConnectivity's session.
    .target(name: "DeviceSession"),
    // Pairs under the home, run locks, the local Unix-socket link and the devices' files.
    .target(
      name: "DevicePairing",
      dependencies: ["DeviceSession", "Wormhole", "WormholeVocabulary", "KeyedArchive"]),
    .executableTarget(
      name: "wormhole-tui",
      dependencies: [
        "Wormhole", "WormholeVocabulary", "KeyedArchive", "MailboxModel", "MailboxWatcher", "Dashboard",
        "TerminalBackend", "TerminalInput", "TerminalScreen", "TerminalTheme",
      ]),
    .executableTarget(
      name: "wormhole-bench",
      dependencies: [
        "Wormhole", "WormholeVocabulary", "KeyedArchive", "Inotify", "MailboxModel", "MailboxWatcher",
        "Dashboard", "TerminalScreen", "TerminalTheme", "TerminalBackend",
      ]),
    .testTarget(name: "PropertyListTests", dependencies: ["PropertyList"]),
    .testTarget(name: "KeyedArchiveTests", dependencies: ["KeyedArchive"], exclude: ["Fixtures", "Golden"]),
    .testTarget(
      name: "DashboardTests",
      dependencies: [
        "Dashboard", "MailboxModel", "WormholeVocabulary", "KeyedArchive", "TerminalScreen", "TerminalInput",
        "SnapshotSupport", "TerminalTheme",
      ],
      exclude: ["Snapshots"]),
    .testTarget(
      name: "TerminalScreenTests", dependencies: ["TerminalScreen", "SnapshotSupport"],
      exclude: ["Snapshots"]),
    .testTarget(
      name: "TerminalThemeTests", dependencies: ["TerminalTheme", "TerminalScreen", "ShippedThemes"]),
    // Snapshot files for tests: quoted lines and style runs by role; SNAPSHOT_RECORD=1 re-records.
    .target(name: "SnapshotSupport", dependencies: ["TerminalScreen"], path: "Tests/SnapshotSupport"),
    .testTarget(name: "TerminalInputTests", dependencies: ["TerminalInput"]),
    // Draws with the real backend in tmux; the executable is what runs inside the tmux pane.
    .executableTarget(
      name: "terminal-backend-check",
      dependencies: ["TerminalBackend", "TerminalInput", "TerminalScreen", "TerminalTheme"],
      path: "Tests/TerminalBackendCheck"),
    .testTarget(
      name: "TerminalBackendTests",
      dependencies: ["TerminalBackend", "TerminalInput", "TerminalTheme", "terminal-backend-check"]),
    .testTarget(name: "WormholeVocabularyTests", dependencies: ["WormholeVocabulary"]),
    .testTarget(name: "WormholeTests", dependencies: ["Wormhole", "KeyedArchive"]),
    .testTarget(
      name: "MailboxModelTests",
      dependencies: ["MailboxModel", "WormholeVocabulary", "Wormhole", "KeyedArchive"]),
    .testTarget(
      name: "MailboxWatcherTests",
      dependencies: [
        "MailboxWatcher", "MailboxModel", "WormholeVocabulary", "Wormhole", "KeyedArchive", "Inotify",
      ]),
    // A simulated device in a child process, for the tests that kill one; also measures the link.
    .executableTarget(
      name: "device-runner", dependencies: ["DevicePairing", "DeviceSession"], path: "Tests/DeviceRunner"),
    .testTarget(
      name: "DevicePairingTests", dependencies: ["DevicePairing", "DeviceSession", "device-runner"]),
    // Runs the built `wormhole-tui` as a second process; the dependency makes `swift test` build it.
    .testTarget(name: "CommandLineTests", dependencies: ["Wormhole", "KeyedArchive", "wormhole-tui"]),
  ]
)
