import ArchivedValues
import Dashboard
import DashboardRuntime
import DeviceSession
import KeyedArchive
import MailboxModel
import MailboxWatcher
import Synchronization
import Testing
import WormholeVocabulary

/// Pair operations that remember what they were asked and answer as scripted.
final class FakePairOperations: PairOperations {
  struct Cancel: Equatable {
    var id: UInt64
    var device: DeviceAddress
    var home: String
  }

  private let state = Mutex<(sends: [PairSendRequest], cancels: [Cancel])>(([], []))
  private let answer: Result<PairSendOutcome, PairOperationError>
  private let cancelFailure: PairOperationError?

  init(
    _ answer: Result<PairSendOutcome, PairOperationError> = .success(.message(reply: nil)),
    cancelFailure: PairOperationError? = nil
  ) {
    self.answer = answer
    self.cancelFailure = cancelFailure
  }

  func send(_ request: PairSendRequest) throws(PairOperationError) -> PairSendOutcome {
    state.withLock { $0.sends.append(request) }
    return try answer.get()
  }

  func cancelTransfer(_ id: UInt64, of device: DeviceAddress, home: String) throws(PairOperationError) {
    state.withLock { $0.cancels.append(Cancel(id: id, device: device, home: home)) }
    if let cancelFailure { throw cancelFailure }
  }

  var sends: [PairSendRequest] { state.withLock { $0.sends } }
  var cancels: [Cancel] { state.withLock { $0.cancels } }
}

private let group: FileName = "/w/pairs/desk/watch/AppGroup/group.example"

private func desk(_ role: DeviceRole) throws -> DeviceAddress {
  DeviceAddress(pair: try PairName("desk"), role: role)
}

private func send(
  _ type: TransitingType, _ content: SessionSend.Content = .value(.string("ping")),
  replyTimeout: Double? = nil,
  identical: Bool = false
) -> DashboardEffect {
  .sessionSend(
    SessionSend(
      sender: SessionSend.Sender(
        home: "/w", pair: "desk", role: .watch, applicationGroup: "group.example", optionalDirectory: "inbox"),
      transiting: type, identifier: "ping", content: content, replyTimeout: replyTimeout,
      deliversIdentical: identical))
}

/// A model with mailbox `score` in desk's watch group: two versions, and a traffic entry for the
/// second (a change no record described).
private func model() -> ModelState {
  var model = ModelState()
  _ = model.apply(.directoryAppeared(group), at: 1_000)
  _ = model.apply(
    .directoryScanned(group, mailboxes: ["score": observation(.integer(1))], initial: true), at: 1_000)
  _ = model.apply(.mailboxChanged(directory: group, identifier: "score", observation(.integer(2))), at: 2_000)
  _ = model.apply(.tick, at: 10_000)
  return model
}

@Suite struct PairSendTests {
  @Test func aTypedValueIsArchivedAndSentAsTheSendingDeviceAndTheReplyIsSaid() throws {
    let reply = try KeyedArchiveEncoder().encodeBytes(.string("pong"))
    let pairs = FakePairOperations(.success(.message(reply: reply)))
    let effect = send(.sessionMessage, replyTimeout: 2)
    let result = EffectJob(effect: effect, model: ModelState()).run(with: MailboxOperations(), pairs: pairs)
    #expect(result.failure == nil)
    #expect(result.detail == "delivered to the phone; reply: \"pong\"")
    #expect(
      pairs.sends == [
        PairSendRequest(
          home: "/w", sender: try desk(.watch), applicationGroup: "group.example", optionalDirectory: "inbox",
          identifier: "ping", archive: try KeyedArchiveEncoder().encodeBytes(.string("ping")),
          kind: .message(replyTimeout: 2))
      ])
  }

  @Test(arguments: [
    (TransitingType.sessionMessage, PairSendOutcome.message(reply: nil), "delivered to the phone"),
    (.sessionContext, .context(.sent(version: 3), isStored: true), "context version 3 stored by the phone"),
    (.sessionContext, .context(.queued(version: 4), isStored: false), "queued: context version 4"),
    (.sessionContext, .context(.unchanged, isStored: false), "unchanged: identical to the current context"),
    (.sessionFile, .transfer(id: 12, wasReachable: false, isStored: false), "queued: transfer 12"),
    (.sessionFile, .transfer(id: 13, wasReachable: true, isStored: true), "transfer 13 stored by the phone"),
  ])
  func eachOutcomeIsSaid(type: TransitingType, outcome: PairSendOutcome, said: String) throws {
    let pairs = FakePairOperations(.success(outcome))
    let result = EffectJob(effect: send(type, identical: true), model: ModelState())
      .run(with: MailboxOperations(), pairs: pairs)
    #expect(result.detail?.hasPrefix(said) == true, "\(result)")
    let kind = try #require(pairs.sends.first?.kind)
    switch type {
    case .sessionMessage: #expect(kind == .message(replyTimeout: nil))
    case .sessionContext: #expect(kind == .context(deliveringIdentical: true))
    default: #expect(kind == .file)
    }
  }

  @Test(arguments: [(SessionError.notReachable, "7007"), (.replyTimedOut(seconds: 2), "7012")])
  func aFailureCarriesTheWatchConnectivityCode(error: SessionError, code: String) {
    let pairs = FakePairOperations(.failure(.session(error)))
    let result = EffectJob(effect: send(.sessionMessage, replyTimeout: 2), model: ModelState())
      .run(with: MailboxOperations(), pairs: pairs)
    #expect(result.failure?.contains(code) == true, "\(result)")
    #expect(result.detail == nil)
  }

  @Test func aKeptVersionIsSentAsItsBytesAndAGoneOneIsNotSentAtAll() throws {
    let model = model()
    let mailbox = try #require(model.mailbox("score", in: group))
    let first = try #require(mailbox.history.first)
    let pairs = FakePairOperations()
    let result = EffectJob(
      effect: send(.sessionMessage, .version(directory: group, identifier: "score", serial: first.serial)),
      model: model
    ).run(with: MailboxOperations(), pairs: pairs)
    #expect(result.failure == nil)
    #expect(pairs.sends.map(\.archive) == [try #require(first.bytes)])

    let gone = EffectJob(
      effect: send(.sessionMessage, .version(directory: group, identifier: "score", serial: 999)),
      model: model
    ).run(with: MailboxOperations(), pairs: pairs)
    #expect(gone.failure == "that version is no longer kept")
    #expect(pairs.sends.count == 1)
  }

  /// A traffic entry of a file mailbox re-sent as a context: the message it wrote.
  @Test func aTrafficEntrysMessageIsSentWithAnotherType() throws {
    let model = model()
    let entry = try #require(model.traffic.last)
    let version = try #require(model.version(of: entry))
    let pairs = FakePairOperations(.success(.context(.sent(version: 1), isStored: true)))
    let result = EffectJob(effect: send(.sessionContext, .entry(entry.id)), model: model)
      .run(with: MailboxOperations(), pairs: pairs)
    #expect(result.failure == nil, "\(result)")
    #expect(pairs.sends.map(\.archive) == [try #require(version.bytes)])
    #expect(pairs.sends.map(\.kind) == [.context(deliveringIdentical: false)])

    let unknown = EffectJob(effect: send(.sessionFile, .entry(9_999)), model: model)
      .run(with: MailboxOperations(), pairs: pairs)
    #expect(unknown.failure == "that traffic entry is no longer kept")
    #expect(pairs.sends.count == 1)
  }

  /// The cancel of a running device's transfer goes to the pair operations (which reach the
  /// running device), and their refusal is the failure.
  @Test func aCancelGoesThroughThePairOperations() throws {
    let pairs = FakePairOperations()
    let effect = DashboardEffect.cancelTransfer(home: "/h", pair: "desk", role: .phone, id: 7)
    let result = EffectJob(effect: effect, model: ModelState()).run(with: MailboxOperations(), pairs: pairs)
    #expect(result.failure == nil)
    #expect(pairs.cancels == [FakePairOperations.Cancel(id: 7, device: try desk(.phone), home: "/h")])

    let refusing = FakePairOperations(cancelFailure: .session(.transferAlreadySent(7)))
    let refused = EffectJob(effect: effect, model: ModelState()).run(
      with: MailboxOperations(), pairs: refusing)
    #expect(refused.failure == SessionError.transferAlreadySent(7).description)

    let badName = EffectJob(
      effect: .cancelTransfer(home: "/h", pair: "a/b", role: .phone, id: 7), model: ModelState()
    ).run(with: MailboxOperations(), pairs: pairs)
    #expect(badName.failure?.contains("cannot name a pair") == true)
    #expect(pairs.cancels.count == 1)
  }

  @Test func readOnlyRefusesEverySendAndCancelWithoutReachingTheDevices() {
    let effects = [
      send(.sessionMessage), send(.sessionContext), send(.sessionFile),
      .cancelTransfer(home: "/h", pair: "desk", role: .watch, id: 1),
    ]
    let pairs = FakePairOperations()
    let refusing = MailboxEffectExecutor(pairs: pairs, isReadOnly: true)
    let failures = Mutex<[String]>([])
    for effect in effects {
      let job = EffectJob(effect: effect, model: ModelState())
      #expect(job.writes)
      refusing.execute(job) { message in
        if case .effectFinished(let result) = message {
          failures.withLock { $0.append(result.failure ?? "done") }
        }
      }
    }
    refusing.waitUntilIdle()
    #expect(failures.withLock { $0 } == Array(repeating: MailboxEffectExecutor.readOnlyRefusal, count: 4))
    #expect(pairs.sends.isEmpty && pairs.cancels.isEmpty)

    // Not read-only, the same jobs reach the devices: the comparison above can fail.
    let writing = MailboxEffectExecutor(pairs: pairs, isReadOnly: false)
    for effect in effects { writing.execute(EffectJob(effect: effect, model: ModelState())) { _ in } }
    writing.waitUntilIdle()
    #expect(pairs.sends.count == 3 && pairs.cancels.count == 1)
  }

  /// Through the loop: the form on a device row sends, and the result reaches the message log.
  @Test func theFormSendsThroughTheLoopAndSaysWhereItWent() throws {
    let pairs = FakePairOperations(.success(.transfer(id: 12, wasReachable: false, isStored: false)))
    let executor = RecordingExecutor(MailboxEffectExecutor(pairs: pairs, isReadOnly: false))
    let snapshot = PairSnapshot(
      name: "desk", home: "/w", phone: .init(role: .phone, runningPID: 10), watch: .init(role: .watch))
    let run = try LoopRun(
      source: ScriptedEventSource(initial: initialScan(group, ["score": .integer(1)])), executor: executor,
      messageSources: [StaticMessages([.pairs([snapshot])])],
      script: [.waitFor("desk  phone ● watch ○")] + keys("jjjp") + [.waitFor("Pass a message")]
        + keys("doc<Tab>\"x\"<Tab><Right>") + [.waitFor("queued until the watch runs")] + keys("<Enter>")
        + [.waitFor("queued: transfer 12")] + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    #expect(pairs.sends.map(\.kind) == [.file])
    #expect(pairs.sends.first?.sender == (try desk(.phone)))
    #expect(pairs.sends.first?.applicationGroup == "group.example")
    #expect(
      run.loop.state.messageLog.entries.contains {
        $0.text
          == "passed doc (session-file, phone → watch of desk): queued: transfer 12, delivered when the watch runs"
      }, "\(run.loop.state.messageLog.entries.map(\.text))")
  }
}

/// Posts fixed messages once, at start.
final class StaticMessages: DashboardMessageSource {
  private let messages: [DashboardMessage]

  init(_ messages: [DashboardMessage]) { self.messages = messages }

  func start(posting post: @escaping @Sendable (DashboardMessage) -> Void) {
    for message in messages { post(message) }
  }

  func cancel() {}
}
