import DeviceSession
import Foundation
import Glibc
import KeyedArchive
import Wormhole

/// The hidden `demo-player` verb: one simulated process of the demo, until its parent ends: an
/// app or its extension passing a realistic mix of messages through files, or a device of the
/// demo's pair (``DemoDevicePlayer``).
enum DemoPlayerVerb {
  static let verb = Verb(
    name: "demo-player", synopsis: "--home DIR --role app|extension|phone|watch|reaper",
    summary: "(internal) one simulated process of the demo",
    options: [
      OptionSpec(.home, help: "the demo's home"),
      OptionSpec(
        .role, help: "app, extension, phone, watch, or reaper (removes the home when all have ended)"),
    ],
    usesLocation: false, isHidden: true,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    // End with the demo, whatever ends it: the parent changes when it is gone.
    let parent = getppid()
    guard let home = arguments.value(.home), let role = arguments.value(.role) else {
      throw .usage("demo-player needs --home and --role")
    }
    if role == "reaper" { return DemoReaper.run(home: home) }
    if let device = DeviceRole(rawValue: role) {
      return try DemoDevicePlayer.run(home: home, role: device, parent: parent)
    }
    let directory = home + "/AppGroup/" + DemoVerb.group
    func open(_ type: TransitingType) throws(CommandError) -> Wormhole {
      var options = Wormhole.Options()
      options.sender = role
      options.createsDirectory = false
      do {
        return try Wormhole(directory: directory, transitingType: type, options: options)
      } catch {
        throw CommandError(error)
      }
    }
    let plain = try open(.file)
    let coordinated = try open(.coordinatedFile)
    var step = 0
    while getppid() == parent {
      step += 1
      if role == "app" {
        appStep(step, plain: plain, coordinated: coordinated, directory: directory)
      } else {
        extensionStep(step, plain: plain, coordinated: coordinated)
      }
      usleep(role == "app" ? 400_000 : 700_000)
    }
    return .success
  }

  private static func appStep(_ step: Int, plain: Wormhole, coordinated: Wormhole, directory: String) {
    let angle = Double(step) / 6
    _ = try? plain.passMessage(
      .dictionary([
        .init(key: .string("tapped"), value: .string(["play", "pause", "next", "shuffle"][step % 4])),
        .init(key: .string("count"), value: .integer(Int64(step))),
      ]), identifier: "button")
    if step % 2 == 0 {
      _ = try? plain.passMessage(
        .dictionary([
          .init(key: .string("latitude"), value: .real(48.8566 + sin(angle) / 100)),
          .init(key: .string("longitude"), value: .real(2.3522 + cos(angle) / 100)),
          .init(key: .string("accuracy"), value: .real(5 + Double(step % 7))),
        ]), identifier: "location")
    }
    if step % 5 == 0 { _ = try? plain.passMessage(nil, identifier: "refresh") }
    if step % 7 == 0 {
      _ = try? coordinated.passMessage(.string("Saved \(step) items"), identifier: "toast")
    }
    if step % 7 == 3 { _ = try? coordinated.clearMessageContents(forIdentifier: "toast") }
    // A pass that fails: a directory stands where the mailbox would go.
    if step % 13 == 5 { _ = try? plain.passMessage(.integer(Int64(step)), identifier: "blocked") }
    // A writer that bypasses the journal (a copy, a sync): the change has no record.
    if step % 11 == 4, let bytes = try? KeyedArchiveEncoder().encodeBytes(.string("synced at step \(step)")) {
      let temporary = directory + "/.sync.tmp"
      if FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) {
        rename(temporary, directory + "/sync.archive")
      }
    }
  }

  private static func extensionStep(_ step: Int, plain: Wormhole, coordinated: Wormhole) {
    _ = try? coordinated.passMessage(
      .dictionary([
        .init(key: .string("title"), value: .string("Now playing")),
        .init(key: .string("progress"), value: .real(Double(step % 20) / 20)),
        .init(key: .string("updated"), value: .date(ArchiveDate(Date()))),
      ]), identifier: "widget")
    if step % 3 == 0 { _ = try? plain.passMessage(.boolean(true), identifier: "ack") }
    if step % 9 == 0 { _ = try? plain.passMessage(nil, identifier: "ping") }
  }
}
