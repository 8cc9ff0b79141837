import DashboardRuntime
import Foundation
import KeyedArchive
import MailboxModel
import MailboxWatcher
import Synchronization
import TestSupport
import Testing
import Wormhole
import WormholeVocabulary

@testable import Dashboard

/// A way an operator can ask for a write, as keys typed once the dashboard shows its mailboxes
/// and traffic.
struct WritePath: Sendable, CustomTestStringConvertible {
  var name: String
  var keys: String

  var testDescription: String { name }

  static let all = [
    WritePath(name: ":clear-all, Enter, y", keys: ":clear-all<Enter>y"),
    WritePath(name: ":clear-all, Enter, Enter", keys: ":clear-all<Enter><Enter>"),
    WritePath(name: "p, the form, Enter", keys: "p<S-Tab><C-u>typed<Tab>[1]<Enter>"),
    WritePath(name: "d, y", keys: "dy"),
    WritePath(name: "Del, Enter", keys: "<Del><Enter>"),
    WritePath(name: "D, y", keys: "Dy"),
    WritePath(name: "r, Enter in the contents", keys: "<Tab>r<Enter>"),
    WritePath(name: "r, Enter in the traffic", keys: "<Tab><Tab>r<Enter>"),
    WritePath(name: ":pass ID JSON, Enter", keys: ":pass greeting {}<Enter>"),
    WritePath(name: ":pass ID, Enter", keys: ":pass greeting<Enter>"),
    WritePath(name: ":clear ID, Enter, y", keys: ":clear greeting<Enter>y"),
    WritePath(name: ":clear, Enter, y", keys: ":clear<Enter>y"),
    WritePath(name: ":replay, Enter, Enter", keys: ":replay<Enter><Enter>"),
    WritePath(name: ":replay in the traffic, Enter, Enter", keys: "<Tab><Tab>:replay<Enter><Enter>"),
  ]
}

/// `--read-only` holds whatever the operator types: the disk and the journal stay byte for byte
/// as they were, through the real loop, the real watcher and the real executor.
@Suite struct ReadOnlyTests {
  /// What one read-only run over a directory holding two mailboxes and their traffic did.
  struct Outcome {
    var before: [String: Data]
    var after: [String: Data]
    var run: LoopRun
    var executor: RecordingExecutor
  }

  static func run(_ path: WritePath, readOnly: Bool = true) throws -> Outcome {
    let directory = TemporaryDirectory(prefix: "wormhole-read-only")
    defer { directory.remove() }
    let wormhole = try Wormhole(directory: directory.path)
    try wormhole.passMessage(.string("hello"), identifier: "greeting")
    try wormhole.passMessage(.integer(1), identifier: "other")
    let before = directory.allFiles()
    #expect(before.keys.contains(TrafficJournal.fileName), "the journal is part of what is compared")
    let executor = RecordingExecutor(MailboxEffectExecutor(isReadOnly: readOnly))
    let source = try MailboxWatcherSource(roots: [.container(directory.path)])
    let ready = InMemoryTerminal.Step.waitUntil("both mailboxes and their traffic") { screen in
      screen.lines.filter { $0.contains(" passed ") }.count == 2
        && screen.lines.contains { $0.contains("other") }
    }
    let run = try LoopRun(
      source: source, executor: executor, rootPaths: [directory.path], readOnly: readOnly, width: 200,
      realWaits: { true }, script: [ready] + keys(path.keys) + [.waitForFrame] + keys("<C-c>"))
    return Outcome(before: before, after: directory.allFiles(), run: run, executor: executor)
  }

  @Test(arguments: WritePath.all) func everyWritePathLeavesTheDiskAndTheJournalAsTheyWere(_ path: WritePath)
    throws
  {
    let outcome = try Self.run(path)
    #expect(outcome.run.terminal.failures.isEmpty, "\(outcome.run.terminal.failures)")
    #expect(outcome.run.exit == .quit)
    #expect(outcome.after == outcome.before, "the disk changed: \(outcome.after.keys.sorted())")
    // Whatever reached the executor was refused there.
    #expect(outcome.executor.outcomes.allSatisfy { $0.hasSuffix(MailboxEffectExecutor.readOnlyRefusal) })
  }

  /// The reducer refuses first: no write even reaches the executor (which would refuse it too).
  @Test(arguments: WritePath.all) func everyWritePathIsRefusedBeforeTheExecutor(_ path: WritePath) throws {
    let outcome = try Self.run(path)
    #expect(outcome.run.terminal.failures.isEmpty, "\(outcome.run.terminal.failures)")
    #expect(outcome.executor.writeJobs.map(\.effect.operation) == [])
  }

  /// The same keys without `--read-only` do write: each path is a real one.
  @Test(arguments: WritePath.all) func everyWritePathWritesWhenNotReadOnly(_ path: WritePath) throws {
    let outcome = try Self.run(path, readOnly: false)
    #expect(outcome.run.terminal.failures.isEmpty, "\(outcome.run.terminal.failures)")
    #expect(outcome.executor.writeJobs.count == 1)
    #expect(outcome.after != outcome.before, "\(outcome.executor.outcomes)")
  }

  @Test func aReadOnlyExecutorRefusesEveryWriteItIsGiven() throws {
    let directory = TemporaryDirectory(prefix: "wormhole-read-only")
    defer { directory.remove() }
    let wormhole = try Wormhole(directory: directory.path)
    try wormhole.passMessage(.string("hello"), identifier: "greeting")
    let name = FileName(directory.path)
    var model = ModelState()
    _ = model.apply(.directoryAppeared(name), at: 1_000)
    _ = model.apply(
      .directoryScanned(name, mailboxes: ["greeting": observation(.string("hello"))], initial: false),
      at: 1_000)
    let serial = try #require(model.mailbox("greeting", in: name)?.current?.serial)
    let entry = model.traffic.last?.id ?? 1  // refused before it is looked up
    let effects: [DashboardEffect] = [
      .pass(directory: name, identifier: "new", value: .integer(1), transiting: .file),
      .clear(directory: name, identifier: "greeting"),
      .clearAll(directory: name),
      .replayVersion(
        directory: name, identifier: "greeting", serial: serial, toDirectory: name, toIdentifier: "copy",
        transiting: .file),
      .replayEntry(entry: entry, toDirectory: name, toIdentifier: "copy", transiting: .file),
      .sessionSend(
        SessionSend(
          sender: SessionSend.Sender(
            home: directory.path, pair: "desk", role: .phone, applicationGroup: "default"),
          transiting: .sessionFile, identifier: "copy",
          content: .version(directory: name, identifier: "greeting", serial: serial))),
      .cancelTransfer(home: directory.path, pair: "desk", role: .phone, id: 1),
      .answerInvitation(
        PeerAnswer(
          controlSocketPath: directory.path + "/none.control.sock", peer: "a#0001", from: "b#0002",
          accepts: false)),
      .peerSend(
        PeerDataSend(
          controlSocketPath: directory.path + "/none.control.sock", peer: "a#0001", targets: "b",
          mode: "reliable",
          data: [1])),
      .peerCommand(
        PeerCommand(
          controlSocketPath: directory.path + "/none.control.sock", peer: "a#0001", request: .disconnect)),
      .route(RouteSend(home: directory.path, pair: "desk", role: .phone, delivery: .push(#"{"aps":{}}"#))),
      .route(RouteSend(home: directory.path, pair: "desk", role: .watch, delivery: .deepLink("app://x"))),
      // To a running peer, and a peer's data from a file: neither reaches the peer.
      .route(
        RouteSend(
          to: .peer(
            RouteTarget.Peer(
              service: "chat", id: 1, label: "a#0001", selector: "a",
              controlSocketPath: directory.path + "/none.control.sock")),
          delivery: .deepLink("app://x"), replayOf: 2)),
      .peerSend(
        PeerDataSend(
          controlSocketPath: directory.path + "/none.control.sock", peer: "a#0001", targets: "b",
          mode: "reliable", data: [], file: directory.path + "/greeting")),
      // Remote writes to a bridged machine (--broker): never sent.
      .remoteWrite(RemoteWrite(.pass, machine: "m1", directory: name, identifier: "new", value: .integer(1))),
      .remoteWrite(RemoteWrite(.clear, machine: "m1", directory: name, identifier: "greeting")),
      .remoteWrite(RemoteWrite(.replay, machine: "m1", directory: name, identifier: "copy", archive: [1])),
    ]
    let before = directory.allFiles()
    let remote = RecordingRemoteWrites()
    let refusing = MailboxEffectExecutor(isReadOnly: true, remoteWrites: remote)
    let messages = Mutex<[String]>([])
    for effect in effects {
      let job = EffectJob(effect: effect, model: model)
      #expect(job.writes)
      refusing.execute(job) { message in
        if case .effectFinished(let result) = message {
          messages.withLock { $0.append(result.effect.operation + ": " + (result.failure ?? "done")) }
        }
      }
    }
    refusing.waitUntilIdle()
    #expect(messages.withLock { $0.count } == effects.count)
    #expect(messages.withLock { $0 }.allSatisfy { $0.hasSuffix(MailboxEffectExecutor.readOnlyRefusal) })
    #expect(directory.allFiles() == before)
    #expect(remote.sent.withLock { $0 }.isEmpty, "a remote write was sent")

    // The same jobs, not read-only, do write: the comparison above can fail.
    let writing = MailboxEffectExecutor(isReadOnly: false)
    writing.execute(EffectJob(effect: effects[0], model: model)) { _ in }
    writing.waitUntilIdle()
    #expect(try wormhole.message(withIdentifier: "new") == .integer(1))
    #expect(directory.allFiles() != before)
    let sending = MailboxEffectExecutor(isReadOnly: false, remoteWrites: remote)
    sending.execute(EffectJob(effect: effects[effects.count - 2], model: model)) { _ in }
    sending.waitUntilIdle()
    #expect(remote.sent.withLock { $0 }.map(\.operation) == [.clear])
  }
}

/// Records the remote writes it is given, and sends none.
final class RecordingRemoteWrites: RemoteWriting {
  let sent = Mutex<[RemoteWrite]>([])

  func perform(_ write: RemoteWrite, effect: DashboardEffect) -> EffectResult {
    sent.withLock { $0.append(write) }
    return .done(effect)
  }
}
