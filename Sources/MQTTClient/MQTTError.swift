import ArchivedValues

/// Why the MQTT client could not do what it was asked, with what to do about it.
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
  /// libmosquitto could not be loaded (`reason`: the loader's words).
  case libraryMissing(String)
  /// A broker address that is not `mqtt://HOST:PORT` or `mqtts://HOST:PORT`.
  case invalidAddress(String, reason: String)
  /// A topic, client identifier or payload libmosquitto refused before sending anything.
  case invalidArgument(String)
  /// The connection to the broker could not be made.
  case connectionFailed(BrokerAddress, reason: String)
  /// An operation failed after connecting (`operation`: publish, subscribe), in libmosquitto's words.
  case operationFailed(String, reason: String)
  /// A payload larger than the client sends or accepts.
  case payloadTooLarge(bytes: Int, limit: Int)
  /// The connection settings from the environment cannot be used (see ``MQTTConnectionOptions``):
  /// what to change.
  case invalidSettings(String)

  public var description: String {
    switch self {
    case .libraryMissing(let reason):
      return
        "the MQTT client library libmosquitto.so.1 is not installed (apt install libmosquitto1): \(DisplayText.escaped(reason))"
    case .invalidAddress(let text, let reason):
      return "the broker address \(DisplayText.field(text)) is refused: \(reason)"
    case .invalidArgument(let reason): return "libmosquitto refused the request: \(reason)"
    case .connectionFailed(let broker, let reason):
      return "cannot connect to the broker at \(DisplayText.field(broker.description)): \(reason)"
    case .operationFailed(let operation, let reason): return "MQTT \(operation) failed: \(reason)"
    case .payloadTooLarge(let bytes, let limit):
      return "an MQTT payload of \(bytes) bytes is larger than the limit of \(limit) bytes"
    case .invalidSettings(let reason): return "the MQTT connection settings are not usable: \(reason)"
    }
  }
}
