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
    // What an archive holds, as plain values, and how it is shown (text tree, summary, JSON), with
    // `DisplayText`. Pure: only the standard library and other pure modules; no threads.
    .target(name: "ArchivedValues", dependencies: ["PropertyList", "TerminalScreen"]),
    // NSKeyedArchiver object graphs: a linear encoder and a resolver that never instantiates a class;
    // deep input is decoded on a large-stack thread of its own.
    .target(name: "KeyedArchive", dependencies: ["ArchivedValues", "PropertyList"]),
    // The I/O-free vocabulary of the on-disk contract, shared by the library, the model and the views.
    .target(name: "WormholeVocabulary", dependencies: ["ArchivedValues", "PropertyList"]),
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
    .systemLibrary(name: "CNcursesw"),
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
        "MailboxModel", "ArchivedValues", "WormholeVocabulary", "TerminalScreen", "TerminalInput",
        "PatternMatching", "DeviceRouting", "FleetModel",
      ]),
    // PCRE2 (8-bit) from Debian: regular expressions with match limits. Only the runtime library
    // (libpcre2-8-0, on every Debian system) is needed: shim.h declares the functions we call.
    .systemLibrary(name: "CPCRE2"),
    // Regular expressions that can never keep the loop busy: PCRE2 under match limits, and a
    // budget per pass over many candidates. No I/O.
    .target(name: "PatternMatching", dependencies: ["CPCRE2"]),
    // A thin, safe wrapper over Linux inotify: the only code that touches it.
    .target(name: "Inotify"),
    // fsetxattr/fgetxattr from glibc's <sys/xattr.h>: the mailbox's transfer identifier.
    .target(name: "CExtendedAttributes"),
    // epoll from glibc's <sys/epoll.h>: the device link's thread and a caller waiting for a reply
    // take turns reading one connection.
    .target(name: "CEpoll"),
    // Threads of their own (pthreads) for the loops that block: the journal follower, the
    // device and peer links, the control servers, libmosquitto's network loop.
    .target(name: "SystemThreads"),
    // The wormhole library: mailboxes, notifications, the traffic journal, transiting types.
    .target(
      name: "Wormhole",
      dependencies: [
        "WormholeVocabulary", "KeyedArchive", "PropertyList", "Inotify", "CExtendedAttributes",
        "SystemThreads",
      ]),
    // CoreSimulator device sets read as values: devices, pairs, application groups, notes.
    .target(
      name: "SimulatorDeviceSet", dependencies: ["PropertyList", "WormholeVocabulary", "ArchivedValues"]),
    // The live mailbox model: events in, state out, through a pure reducer (no I/O).
    .target(
      name: "MailboxModel",
      dependencies: ["WormholeVocabulary", "ArchivedValues", "PropertyList", "TerminalScreen"]),
    // Watches wormhole directories with inotify and feeds the model; the operations on mailboxes.
    .target(
      name: "MailboxWatcher",
      dependencies: [
        "MailboxModel", "WormholeVocabulary", "Wormhole", "KeyedArchive", "Inotify", "SystemThreads",
        "WakeSignal",
      ]),
    // The fleet: bridged machines, their presence, mailboxes and traffic, from the broker's
    // messages (hostile input), through a pure reducer shared by the dashboard and dump --broker.
    .target(
      name: "FleetModel",
      dependencies: [
        "MailboxModel", "WormholeVocabulary", "ArchivedValues", "PropertyList", "TerminalScreen", "FleetProtocol",
      ]),
    // A pipe that wakes a thread blocked in poll(2): the one wake primitive of the loops.
    .target(name: "WakeSignal"),
    // The dashboard's loop and its effect executor, behind narrow protocols for the terminal,
    // the event source, the executor and the clock; the real ones (ncurses, the watcher, the
    // mailbox operations) and in-memory ones for tests.
    .target(
      name: "DashboardRuntime",
      dependencies: [
        "Dashboard", "MailboxModel", "MailboxWatcher", "WormholeVocabulary", "KeyedArchive",
        "TerminalBackend",
        "TerminalInput", "TerminalScreen", "TerminalTheme", "WakeSignal", "DevicePairing", "DeviceSession",
        "DeviceRouting", "PeerSession", "FleetModel", "MQTTClient", "FleetProtocol", "FleetClient",
      ]),
    // libmosquitto (Debian's libmosquitto1), declared by us and reached through dlopen on first
    // use: building needs neither its development package nor the library itself.
    .target(name: "CMosquitto"),
    // A thin, safe MQTT client over libmosquitto: connect, publish, subscribe, events.
    .target(name: "MQTTClient", dependencies: ["CMosquitto", "ArchivedValues", "SystemThreads"]),
    // The fleet's protocol: the bridge's topics, its info, remote requests and replies, with
    // strict codecs (everything from the broker is hostile). Pure.
    .target(name: "FleetProtocol", dependencies: ["WormholeVocabulary", "PropertyList", "ArchivedValues"]),
    // Sends remote pass, clear and replay requests to a machine's bridge and awaits the reply.
    .target(name: "FleetClient", dependencies: ["FleetProtocol", "MQTTClient", "WormholeVocabulary", "ArchivedValues"]),
    // Paired simulated devices, I/O-free: values, frames, the link protocol, WatchConnectivity's session.
    .target(name: "DeviceSession"),
    // Pairs under the home, run locks, the local Unix-socket link and the devices' files; the
    // local peer link (peers under <home>/peers/<service>/) and the running peer.
    .target(
      name: "DevicePairing",
      dependencies: [
        "DeviceSession", "Wormhole", "WormholeVocabulary", "KeyedArchive", "DeviceRouting", "MQTTClient",
        "PeerSession", "CEpoll", "WakeSignal", "SystemThreads", "Inotify",
      ]),
    // Routes for pushes and deep links (Stargate's semantics), routes files, payloads. Pure.
    .target(
      name: "DeviceRouting",
      dependencies: ["PatternMatching", "WormholeVocabulary", "ArchivedValues", "DeviceSession"]),
    // Multipeer Connectivity's semantics, I/O-free: service types, peer names and identities,
    // frames, the peer link protocol and the peer engine (discovery, invitations, the mesh,
    // data, resources). Pure.
    .target(name: "PeerSession", dependencies: ["DeviceSession", "ArchivedValues"]),
    .executableTarget(
      name: "wormhole-tui",
      dependencies: [
        "Wormhole", "WormholeVocabulary", "KeyedArchive", "PropertyList", "MailboxModel", "MailboxWatcher",
        "Dashboard", "DashboardRuntime", "TerminalBackend", "TerminalInput", "TerminalScreen",
        "TerminalTheme",
        "DeviceSession", "DevicePairing", "DeviceRouting", "SimulatorDeviceSet", "MQTTClient", "PeerSession",
        "FleetModel", "FleetProtocol", "FleetClient",
      ]),
    .executableTarget(
      name: "wormhole-bench",
      dependencies: [
        "Wormhole", "WormholeVocabulary", "KeyedArchive", "Inotify", "MailboxModel", "MailboxWatcher",
        "Dashboard", "TerminalScreen", "TerminalTheme", "TerminalBackend", "PatternMatching",
        "DevicePairing", "DeviceSession", "PeerSession", "MQTTClient", "FleetProtocol",
      ]),
    .testTarget(name: "PropertyListTests", dependencies: ["PropertyList", "TestSupport"]),
    .testTarget(
      name: "KeyedArchiveTests",
      dependencies: [
        "KeyedArchive", "ArchivedValues", "PropertyList", "TerminalScreen", "WormholeVocabulary",
        "SnapshotSupport", "TestSupport",
      ],
      exclude: ["Fixtures", "Golden"]),
    // Reads the sources of the pure modules: none may import Foundation, Glibc or Dispatch.
    .testTarget(name: "ModuleGraphTests"),
    .testTarget(
      name: "DashboardTests",
      dependencies: [
        "Dashboard", "MailboxModel", "MailboxWatcher", "WormholeVocabulary", "KeyedArchive", "TerminalScreen",
        "TerminalInput", "SnapshotSupport", "TerminalTheme", "PatternMatching", "FleetModel", "FleetProtocol",
      ],
      exclude: ["Snapshots"]),
    .testTarget(
      name: "TerminalScreenTests", dependencies: ["TerminalScreen", "SnapshotSupport"],
      exclude: ["Snapshots"]),
    .testTarget(
      name: "TerminalThemeTests", dependencies: ["TerminalTheme", "TerminalScreen", "ShippedThemes"]),
    // Snapshot files for tests: quoted lines and style runs by role; SNAPSHOT_RECORD=1 re-records.
    .target(name: "SnapshotSupport", dependencies: ["TerminalScreen"], path: "Tests/SnapshotSupport"),
    // What tests share: a hermetic temporary directory, a tmux pane to drive a real terminal.
    .target(
      name: "TestSupport", dependencies: ["PropertyList", "WormholeVocabulary", "DeviceSession"], path: "Tests/TestSupport"),
    .testTarget(name: "TerminalInputTests", dependencies: ["TerminalInput"]),
    // Draws with the real backend in tmux; the executable is what runs inside the tmux pane.
    .executableTarget(
      name: "terminal-backend-check",
      dependencies: ["TerminalBackend", "TerminalInput", "TerminalScreen", "TerminalTheme", "WakeSignal"],
      path: "Tests/TerminalBackendCheck"),
    .testTarget(
      name: "TerminalBackendTests",
      dependencies: [
        "TerminalBackend", "TerminalInput", "TerminalTheme", "TestSupport", "terminal-backend-check",
      ]),
    .testTarget(name: "PatternMatchingTests", dependencies: ["PatternMatching"]),
    .testTarget(
      name: "DeviceRoutingTests", dependencies: ["DeviceRouting", "PatternMatching", "DeviceSession"]),
    .testTarget(name: "WormholeVocabularyTests", dependencies: ["WormholeVocabulary", "KeyedArchive"]),
    .testTarget(
      name: "WormholeTests", dependencies: ["Wormhole", "WormholeVocabulary", "KeyedArchive", "TestSupport"]),
    .testTarget(
      name: "MailboxModelTests",
      dependencies: [
        "MailboxModel", "WormholeVocabulary", "Wormhole", "KeyedArchive", "TerminalScreen",
      ]),
    .testTarget(
      name: "MailboxWatcherTests",
      dependencies: [
        "MailboxWatcher", "MailboxModel", "WormholeVocabulary", "Wormhole", "KeyedArchive", "Inotify",
        "TestSupport",
      ]),
    // The real dashboard loop with an in-memory terminal, a scripted source and a manual clock.
    .testTarget(
      name: "DashboardRuntimeTests",
      dependencies: [
        "DashboardRuntime", "Dashboard", "MailboxModel", "MailboxWatcher", "Wormhole", "WormholeVocabulary",
        "KeyedArchive", "TerminalInput", "WakeSignal", "TestSupport", "DevicePairing", "DeviceSession",
        "PeerSession", "FleetModel",
      ]),
    .testTarget(
      name: "SimulatorDeviceSetTests",
      dependencies: [
        "SimulatorDeviceSet", "PropertyList", "WormholeVocabulary", "SnapshotSupport", "TestSupport",
      ],
      exclude: ["Fixtures", "Snapshots"]),
    // A simulated device in a child process, for the tests that kill one; also measures the link.
    .executableTarget(
      name: "device-runner", dependencies: ["DevicePairing", "DeviceSession"], path: "Tests/DeviceRunner"),
    .testTarget(
      name: "DevicePairingTests",
      dependencies: [
        "DevicePairing", "DeviceSession", "DeviceRouting", "Wormhole", "WormholeVocabulary", "TestSupport",
        "device-runner", "PeerSession",
      ]),
    .testTarget(name: "FleetProtocolTests", dependencies: ["FleetProtocol", "WormholeVocabulary"]),
    .testTarget(name: "PeerSessionTests", dependencies: ["PeerSession", "DeviceSession", "TestSupport"]),
    // The MQTT client and the device link against a mosquitto of their own (127.0.0.1, a free
    // port); devices killed are `wormhole-tui device run --broker` processes.
    .testTarget(
      name: "BrokerTests",
      dependencies: [
        "MQTTClient", "DevicePairing", "DeviceSession", "TestSupport", "wormhole-tui", "FleetProtocol",
        "FleetClient", "Wormhole", "WormholeVocabulary", "KeyedArchive", "FleetModel", "Dashboard",
        "DashboardRuntime", "MailboxModel", "MailboxWatcher", "PeerSession",
      ]),
    // Runs the built `wormhole-tui` as a second process; the dependency makes `swift test` build it.
    .testTarget(
      name: "CommandLineTests",
      dependencies: ["Wormhole", "KeyedArchive", "TestSupport", "WormholeVocabulary", "wormhole-tui"]),
  ]
)
