import Dashboard
import FleetClient
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
    }
    do throws(RemoteWriteError) {
      let reply = try client.perform(
        operation, on: write.machine, directory: write.directory, identifier: write.identifier,
        archive: archive, replayOf: write.operation == .replay ? write.replayOf : nil)
      guard reply.isOK else {
        return .failed(effect, "refused by the bridge: " + (reply.error ?? "no reason given"))
      }
      return .done(
        effect,
        detail: "applied on \(write.machine)" + (reply.sequence.map { " (journal record \($0))" } ?? ""))
    } catch {
      return .failed(effect, error.description)
    }
  }
}
