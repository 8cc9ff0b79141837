import Dispatch
import Foundation
import Glibc
import KeyedArchive
import Wormhole

/// `wormhole-tui demo`: the library end to end in a throwaway home, narrated. Until the dashboard
/// exists this is what a newcomer runs first.
enum DemoVerb {
  static let verb = Verb(
    name: "demo", synopsis: "[--keep] [--home DIR]",
    summary: "Show the library working end to end in a temporary wormhole home.",
    details: """
      Opens a wormhole for application group group.demo.wormhole, listens, passes messages from
      this process and from a second one, reads them back, clears them and prints the traffic
      journal. The temporary home is removed afterwards unless --keep (or --home) is given.
      """,
    options: [
      OptionSpec(name: "keep", value: nil, help: "keep the temporary home and print its path"),
      OptionSpec(name: "home", value: "DIR", help: "use (and keep) this home instead of a temporary one"),
    ],
    usesLocation: false,
    run: run)

  struct Settings: Codable, Equatable {
    var theme: String
    var refreshSeconds: Double
    var favourites: [String]
  }

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    let home: String
    let removeAfterwards: Bool
    if let given = arguments.value("home") {
      home = given
      removeAfterwards = false
    } else {
      var template = Array((NSTemporaryDirectory() + "/wormhole-demo-XXXXXX").utf8CString)
      guard
        let made = template.withUnsafeMutableBufferPointer({ buffer -> String? in
          guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
          return String(cString: base)
        })
      else { throw .failure("cannot make a temporary directory: \(String(cString: strerror(errno)))") }
      home = made
      removeAfterwards = !arguments.flag("keep")
    }
    if removeAfterwards {
      // Whichever way the process ends: a failed write to standard output ends it from the
      // writer, on a listener's thread as well as here.
      Termination.onExit { try? FileManager.default.removeItem(atPath: home) }
    }
    defer { if removeAfterwards { try? FileManager.default.removeItem(atPath: home) } }
    do {
      try narrate(home: home)
    } catch let error as WormholeError {
      throw CommandError(error)
    } catch let error as CommandError {
      throw error
    } catch {
      throw .failure("\(error)")
    }
    if !removeAfterwards {
      let shown = DisplayText.field(home)
      emit(
        "\nThe home is kept at \(shown); try: wormhole-tui tail --home \(shown) --group group.demo.wormhole --directory wormhole"
      )
    }
    return .success
  }

  static func step(_ text: String) { emit("\n== \(text)") }

  static func narrate(home: String) throws {
    let group = "group.demo.wormhole"
    var options = Wormhole.Options()
    options.sender = "demo"
    let wormhole = try Wormhole(
      applicationGroupIdentifier: group, optionalDirectory: "wormhole", home: home, options: options)
    emit("wormhole directory: \(DisplayText.field(wormhole.directory))")

    step("listen for \"button\" and \"settings\"")
    let heard = DispatchSemaphore(value: 0)
    let tokens = try ["button", "settings"].map { identifier in
      try wormhole.listenForMessage(withIdentifier: identifier) { received in
        let what =
          received.isNotificationOnly ? "(notification)" : received.message?.summary(width: 100) ?? "(empty)"
        emit(
          "  heard \(DisplayText.field(received.identifier)) from \(DisplayText.field(received.record.sender))"
            + " (pid \(received.record.processIdentifier)): \(what)"
        )
        heard.signal()
      }
    }
    defer { tokens.forEach { $0.cancel() } }

    step("pass a dictionary from this process")
    try wormhole.passMessage(
      .dictionary([
        ArchivedEntry(key: .string("buttonNumber"), value: .integer(1)),
        ArchivedEntry(key: .string("title"), value: .string("Hello from the app")),
      ]), identifier: "button")
    try wait(heard)

    step("pass from a second process: wormhole-tui pass button '{\"buttonNumber\":2}'")
    let status = try runSelf([
      "pass", "button", #"{"buttonNumber":2,"title":"Hello from the extension"}"#, "--home", home, "--group",
      group,
      "--directory", "wormhole", "--sender", "extension",
    ])
    guard status == 0 else { throw CommandError.failure("the second process exited with \(status)") }
    try wait(heard)

    step("pass a Codable value and read it back typed")
    let settings = Settings(theme: "dark", refreshSeconds: 2.5, favourites: ["inbox", "drafts"])
    try wormhole.passMessage(settings, identifier: "settings")
    try wait(heard)
    let back = try wormhole.message(withIdentifier: "settings", as: Settings.self)
    emit("  read back: \(back.map { "\($0)" } ?? "nothing"), equal: \(back == settings)")

    step("a notification without a message")
    try wormhole.passMessage(nil, identifier: "button")
    try wait(heard)

    step("the mailbox for \"button\", decoded without instantiating any class")
    if let archive = try wormhole.archive(withIdentifier: "button") {
      let inspection = try KeyedArchiveInspector().inspect(archive)
      emit(
        inspection.root.textTree(label: "button").split(separator: "\n").map { "  " + $0 }.joined(
          separator: "\n"))
      emit(
        "  (\(archive.count) bytes, \(inspection.archiver.map(DisplayText.field) ?? "plain property list"))")
    }

    step("clear every mailbox; other files are left alone")
    emit("  before: \(list(try wormhole.identifiers()))")
    try wormhole.clearAllMessageContents()
    emit("  after: \(list(try wormhole.identifiers()))")

    step("the traffic journal (wormhole-tui tail)")
    for record in try wormhole.trafficRecords() { emit("  " + TailVerb.textLine(record)) }
  }

  static func list(_ identifiers: [String]) -> String {
    identifiers.isEmpty ? "(none)" : identifiers.map(DisplayText.field).joined(separator: ", ")
  }

  static func wait(_ semaphore: DispatchSemaphore) throws {
    guard semaphore.wait(timeout: .now() + 10) == .success else {
      throw CommandError.failure("no notification arrived within 10 seconds")
    }
  }

  static func runSelf(_ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }
}
