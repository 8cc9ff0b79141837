import ArchivedValues
import Dashboard
import DashboardRuntime
import DevicePairing
import DeviceSession
import KeyedArchive
import MailboxModel
import MailboxWatcher
import Synchronization
import TestSupport
import Testing
import WormholeVocabulary

/// A device that runs in this process as `device run` does: its session, its control socket,
/// and a reply (the archive of "pong") to every message that asks for one.
private final class RunningDevice: Sendable {
  let device: SimulatedDevice
  let control: DeviceControlServer
  let received = Collector<SessionDelivery>()

  init(_ store: PairStore, _ address: DeviceAddress) throws {
    device = try SimulatedDevice(store: store, address: address, applicationGroup: "group.test")
    let session = device.session
    let received = received
    let pong = try KeyedArchiveEncoder().encodeBytes(.string("pong"))
    session.setDeliveryHandler { delivery in
      received.append(delivery)
      if case .message(let message) = delivery, message.replyRequested {
        try? session.reply(to: message, with: pong)
      }
    }
    control = try DeviceControlServer(session: session, directory: device.directory)
    try session.activate()
  }

  func stop() {
    control.stop()
    device.stop()
  }
}

private func sessionSend(
  home: String, from role: PairSnapshot.Role, _ type: TransitingType, _ value: ArchivedValue,
  replyTimeout: Double? = nil
) -> DashboardEffect {
  .sessionSend(
    SessionSend(
      sender: SessionSend.Sender(home: home, pair: "desk", role: role, applicationGroup: "group.test"),
      transiting: type, identifier: "ping", content: .value(value), replyTimeout: replyTimeout))
}

/// The real pair operations on real devices of a pair under a temporary home, in this process.
@Suite struct DevicePairOperationsTests {
  @Test func aMessageReachesTheRunningWatchItsReplyIsSaidAndWithoutItItIs7007() throws {
    let home = TemporaryDirectory(prefix: "wormhole-pairsend")
    defer { home.remove() }
    let store = PairStore(home: home.path)
    let pair = try store.create(PairStore.name("desk"))
    let watch = try RunningDevice(store, pair.watch)
    let pairs = DevicePairOperations()

    // The phone is not running: the dashboard acts as it, connects to the watch, waits for the reply.
    let effect = sessionSend(home: home.path, from: .phone, .sessionMessage, .string("hi"), replyTimeout: 10)
    let result = EffectJob(effect: effect, model: ModelState()).run(with: MailboxOperations(), pairs: pairs)
    #expect(result.failure == nil, "\(result)")
    #expect(result.detail == "delivered to the watch; reply: \"pong\"")
    let messages = watch.received.wait(until: {
      $0.contains { if case .message = $0 { true } else { false } }
    })
    guard
      case .message(let message)? = messages.first(where: { if case .message = $0 { true } else { false } })
    else {
      Issue.record("the watch received no message: \(messages)")
      return
    }
    #expect(message.identifier == "ping")
    #expect(message.payload == (try KeyedArchiveEncoder().encodeBytes(.string("hi"))))

    watch.stop()
    let unreachable = EffectJob(
      effect: sessionSend(home: home.path, from: .phone, .sessionMessage, .integer(1)), model: ModelState()
    ).run(with: MailboxOperations(), pairs: pairs)
    #expect(unreachable.failure?.contains("7007") == true, "\(unreachable)")
    // Acting as the phone left its run lock free again.
    #expect(RunLock.holder(at: store.directory(for: pair.phone).runLockPath) == nil)
  }

  /// The phone runs (with its control socket) and its watch does not: a transfer sent from the
  /// dashboard is queued on the running phone, and `d` cancels it there, after the question.
  @Test func aQueuedTransferOfARunningDeviceIsCancelledFromTheContentsPane() throws {
    let home = TemporaryDirectory(prefix: "wormhole-pairsend")
    defer { home.remove() }
    let store = PairStore(home: home.path)
    let pair = try store.create(PairStore.name("desk"))
    let phone = try RunningDevice(store, pair.phone)
    defer { phone.stop() }

    let queued = EffectJob(
      effect: sessionSend(home: home.path, from: .phone, .sessionFile, .string("page")), model: ModelState()
    ).run(with: MailboxOperations(), pairs: DevicePairOperations())
    #expect(queued.failure == nil, "\(queued)")
    #expect(queued.detail == "queued: transfer 1, delivered when the watch runs")
    #expect(phone.device.session.outstandingTransfers.map(\.id) == [1])

    let executor = RecordingExecutor(MailboxEffectExecutor(isReadOnly: false))
    let run = try LoopRun(
      source: ScriptedEventSource(initial: []), executor: executor, realWaits: { true },
      messageSources: [PairsSource(home: home.path)],
      script: [.waitFor("1 queued")] + keys("jj<Tab>jjjjjjjjd")
        + [.waitFor("Cancel transfer #1 (ping) of desk phone?")] + keys("y")
        + [.waitFor("cancelled transfer #1 of desk phone")] + keys("q"))
    #expect(run.terminal.failures.isEmpty, "\(run.terminal.failures)")
    #expect(executor.outcomes == ["cancel of transfer #1 of desk phone"])
    // Cancelled by the running phone's own session, not behind its back in its files.
    #expect(phone.device.session.outstandingTransfers.isEmpty)
    #expect(try store.transfers(of: pair.phone).isEmpty)
  }
}
