import Dashboard
import FleetClient
import FleetModel
import FleetProtocol
import KeyedArchive
import MQTTClient

/// Remote writes through a broker with FleetClient's ``FleetClient/RemoteWriteClient``: the
/// request goes to the machine's `requests` topic and the bridge's reply (applied, with its
/// journal sequence, or refused with the reason) comes back. An offline bridge, or one that
/// takes no remote writes, is said at once from its retained info.
public struct FleetRemoteWrites: RemoteWriting {
  public let client: RemoteWriteClient

  /// Writes through `broker`, waiting up to `timeout` seconds for each reply (the dashboard's
  /// `--remote-timeout`).
  public init(broker: BrokerAddress, timeout: Double = RemoteWriteClient.defaultTimeout) {
    client = RemoteWriteClient(broker: broker, timeout: timeout)
  }

  public func perform(_ write: RemoteWrite, effect: DashboardEffect) -> EffectResult {
    var archive = write.archive
    if write.operation == .pass, let value = write.value {
      do { archive = try KeyedArchiveEncoder().encodeBytes(value) } catch {
        return .failed(effect, "the value cannot be archived: \(error)")
      }
    }
    let operation: RemoteRequest.Operation
    switch write.operation {
    case .pass: operation = .pass
    case .clear: operation = .clear
    case .clearAll: operation = .clearAll
    case .replay: operation = .replay
    case .replayRecord: operation = .replayRecord
    }
    do throws(RemoteWriteError) {
      let reply = try client.perform(
        operation, on: write.machine, directory: write.directory, identifier: write.identifier,
        archive: archive,
        replayOf: write.operation == .replay || write.operation == .replayRecord ? write.replayOf : nil)
      guard reply.isOK else {
        return .failed(effect, "refused by the bridge: " + (reply.error ?? "no reason given"))
      }
      return .done(effect, detail: Self.detail(of: reply, on: write.machine))
    } catch {
      return .failed(effect, error.description)
    }
  }

  /// What the status line says of an applied write: `applied on ci-3 (journal record 12)`, and
  /// for a record replay what the bridge wrote again: `: the version of record 9 from its history
  /// (42 bytes, modified 2026-12-01T18:44:05.123Z)`.
  static func detail(of reply: RemoteReply, on machine: String) -> String {
    var detail = "applied on \(machine)" + (reply.sequence.map { " (journal record \($0))" } ?? "")
    if let replayed = reply.replayed {
      let modified = KeptRecordVersion.timestamp(replayed.modifiedMilliseconds)
      detail +=
        ": the version of record \(replayed.record) from its history (\(replayed.byteCount) bytes, modified \(modified))"
    }
    return detail
  }
}
