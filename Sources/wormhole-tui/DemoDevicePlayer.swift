import DevicePairing
import DeviceSession
import Dispatch
import Foundation
import Glibc
import KeyedArchive

/// The demo's simulated phone or watch: one process of `demo-player --role phone|watch`, a
/// ``SimulatedDevice`` of the demo's pair (``DemoDevicePlayer/pairName``) running a script
/// until its parent ends it (SIGTERM: the device stops cleanly and the other side sees it
/// unreachable at once) or goes away.
///
/// The phone plays music to the watch: a session message a step (`playback`, with a reply the
/// watch echoes), now and then one without a reply (`volume`) and one the watch never answers
/// (`diagnostics`: the reply times out, 7012), its `nowPlaying` context every other step, and
/// file transfers (`artwork`, `playlist`). The watch sends its `workout` context, `crown`
/// messages and a `workoutSummary` transfer. While the watch is away (see ``DemoSchedule``)
/// the phone's messages fail with 7007 and its contexts and transfers queue.
enum DemoDevicePlayer {
  /// The demo's pair.
  static let pairName = "demo"
  /// The message the watch leaves unanswered, so that its reply times out.
  static let unansweredIdentifier = "diagnostics"
  /// How long the phone waits for a reply, in seconds.
  static let replyTimeout = 1.0
  /// Seconds between two steps of a script.
  static let stepSeconds = 0.5

  static func run(home: String, role: DeviceRole, parent: pid_t) throws(CommandError) -> ExitCode {
    let store = PairStore(home: home)
    let address = DeviceAddress(pair: try PairArguments.name(pairName), role: role)
    let device = try PairArguments.attempt { () throws(PairStoreError) in
      try SimulatedDevice(store: store, address: address, applicationGroup: DemoVerb.group)
    }
    let session = device.session
    let reachable = DispatchSemaphore(value: 0)
    session.setDeliveryHandler { delivery in
      if case .reachabilityChanged(true) = delivery { reachable.signal() }
      // The watch echoes what waits for a reply, except the message it is made to ignore.
      guard role == .watch, case .message(let message) = delivery, message.replyRequested,
        message.identifier != unansweredIdentifier
      else { return }
      try? session.reply(to: message, with: message.payload)
    }
    // The demo stops a device with SIGTERM (the watch going away, or the end of the demo).
    let sources = Termination.handle()
    // As `device run` does: `pass --pair demo --role ROLE` sends through the running device.
    // Served before activation; stopped before the run lock is released, so that its socket
    // file is never another run's.
    try DeviceVerb.serveAndActivate(device) { () throws(PairedDeviceError) in
      try DeviceControlServer(session: session, directory: device.directory)
    }
    // The script starts once the other side is there (or after a while without it), so that
    // its first messages do not fail only because the two processes started a moment apart.
    _ = reachable.wait(timeout: .now() + 2)
    var step = 0
    var next = DispatchTime.now()
    while getppid() == parent {
      if DispatchTime.now() >= next {
        step += 1
        if role == .phone { phoneStep(step, session) } else { watchStep(step, session) }
        next = next + stepSeconds
      }
      usleep(50_000)
    }
    withExtendedLifetime(sources) {}
    return .success
  }

  /// One step of the phone's script. Sends that fail (the watch away) are the traffic's to show.
  static func phoneStep(_ step: Int, _ session: SessionEngine) {
    let tracks = [
      ("Blue in Green", "Miles Davis"), ("Clair de lune", "Debussy"), ("Teardrop", "Massive Attack"),
      ("Hoppípolla", "Sigur Rós"),
    ]
    let track = tracks[(step / 8) % tracks.count]
    let command = ["play", "pause", "next", "seek"][step % 4]
    send(
      dictionary([("command", .string(command)), ("step", .integer(Int64(step)))]), "playback", session,
      reply: true)
    if step % 4 == 2 {
      send(dictionary([("level", .real(Double(step % 10) / 10))]), "volume", session, reply: false)
    }
    if step % 7 == 3 {
      send(
        dictionary([("battery", .integer(Int64(100 - step % 60)))]), unansweredIdentifier, session,
        reply: true)
    }
    if step % 2 == 0,
      let archive = archive(
        dictionary([
          ("title", .string(track.0)), ("artist", .string(track.1)),
          ("position", .real(Double(step % 8) * stepSeconds)),
        ]))
    {
      _ = try? session.updateApplicationContext(archive, identifier: "nowPlaying")
    }
    if step % 3 == 1,
      let archive = archive(
        dictionary([
          ("title", .string(track.0)),
          ("thumbnail", .data((0..<48).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ step) })),
        ]))
    {
      _ = try? session.transferFile(archive, identifier: "artwork")
    }
    if step % 5 == 2, let archive = archive(.array(tracks.map { .string($0.0) })) {
      _ = try? session.transferFile(archive, identifier: "playlist")
    }
  }

  /// One step of the watch's script.
  static func watchStep(_ step: Int, _ session: SessionEngine) {
    if step % 2 == 1,
      let archive = archive(
        dictionary([
          ("heartRate", .integer(Int64(64 + (step * 7) % 31))), ("calories", .integer(Int64(step * 3))),
        ]))
    {
      _ = try? session.updateApplicationContext(archive, identifier: "workout")
    }
    if step % 3 == 0 {
      send(dictionary([("delta", .integer(step % 2 == 0 ? 1 : -1))]), "crown", session, reply: false)
    }
    if step % 6 == 5,
      let archive = archive(
        dictionary([("minutes", .integer(Int64(step / 2))), ("completed", .boolean(step % 12 == 5))]))
    {
      _ = try? session.transferFile(archive, identifier: "workoutSummary")
    }
  }

  private static func send(
    _ value: ArchivedValue, _ identifier: String, _ session: SessionEngine, reply: Bool
  ) {
    guard let archive = archive(value) else { return }
    if reply {
      _ = try? session.sendMessage(archive, identifier: identifier, replyTimeout: replyTimeout) { _ in }
    } else {
      _ = try? session.sendMessage(archive, identifier: identifier)
    }
  }

  private static func archive(_ value: ArchivedValue) -> [UInt8]? {
    try? KeyedArchiveEncoder().encodeBytes(value)
  }

  private static func dictionary(_ entries: [(String, ArchivedValue)]) -> ArchivedValue {
    .dictionary(entries.map { ArchivedEntry(key: .string($0.0), value: $0.1) })
  }
}
