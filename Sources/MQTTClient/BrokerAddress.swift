/// Where a broker listens: `mqtt://HOST:PORT` (the port defaults to 1883), or `mqtts://HOST:PORT`
/// for TLS (the port defaults to 8883).
///
/// An address never carries credentials: user names and passwords come from the environment
/// (see ``MQTTConnectionOptions``), so that they show neither in the process list nor in a
/// shell's history.
public struct BrokerAddress: Sendable, Hashable, CustomStringConvertible {
  /// The port MQTT brokers listen on when the address names none.
  public static let defaultPort = 1883
  /// The port MQTT brokers listen on for TLS when an `mqtts://` address names none.
  public static let defaultSecurePort = 8883

  /// The host name or address, as given (an IPv6 address without its brackets).
  public var host: String
  public var port: Int
  /// Whether the connection is made over TLS (`mqtts://`): the broker's certificate and host
  /// name are verified, and the client never falls back to plain text.
  public var usesTLS: Bool

  public init(host: String, port: Int = BrokerAddress.defaultPort, usesTLS: Bool = false) {
    self.host = host
    self.port = port
    self.usesTLS = usesTLS
  }

  /// The address in `text`: `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`, `HOST` an IPv6 address
  /// in brackets if it is one. Anything else (another scheme, a path, credentials, a port out of
  /// range) is refused with what is wrong; an address with credentials is refused without
  /// repeating them.
  public init(parsing text: String) throws(MQTTError) {
    let usesTLS: Bool
    let scheme: String
    if text.hasPrefix("mqtts://") {
      (usesTLS, scheme) = (true, "mqtts://")
    } else if text.hasPrefix("mqtt://") {
      (usesTLS, scheme) = (false, "mqtt://")
    } else {
      throw .invalidAddress(text, reason: "it does not start with mqtt:// or mqtts://")
    }
    var rest = Substring(text.dropFirst(scheme.count))
    if let at = rest.lastIndex(of: "@"), !rest[..<at].contains("/") {
      throw .invalidAddress(
        scheme + "…" + rest[at...],
        reason: """
          credentials in the address would show in the process list and the shell's history: \
          give only \(scheme)HOST:PORT, and set WORMHOLE_MQTT_USERNAME with \
          WORMHOLE_MQTT_PASSWORD_FILE (a file only you can read) or WORMHOLE_MQTT_PASSWORD
          """)
    }
    if rest.hasSuffix("/") { rest = rest.dropLast() }
    guard !rest.contains("/"), !rest.contains("@"), !rest.contains("?") else {
      throw .invalidAddress(text, reason: "give only \(scheme)HOST:PORT (no path, user or query)")
    }
    var host: Substring
    var port: Substring?
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else {
        throw .invalidAddress(text, reason: "the IPv6 address has no closing ']'")
      }
      host = rest[rest.index(after: rest.startIndex)..<close]
      let after = rest[rest.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw .invalidAddress(text, reason: "':PORT' must follow ']'") }
        port = after.dropFirst()
      }
    } else if let colon = rest.lastIndex(of: ":") {
      host = rest[..<colon]
      port = rest[rest.index(after: colon)...]
    } else {
      host = rest
    }
    guard !host.isEmpty else { throw .invalidAddress(text, reason: "it names no host") }
    guard !host.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
      throw .invalidAddress(text, reason: "the host contains a space or a control character")
    }
    var number = usesTLS ? BrokerAddress.defaultSecurePort : BrokerAddress.defaultPort
    if let port {
      guard let parsed = Int(port), (1...65535).contains(parsed), port.allSatisfy(\.isASCII) else {
        throw .invalidAddress(text, reason: "the port must be a number from 1 to 65535")
      }
      number = parsed
    }
    self.init(host: String(host), port: number, usesTLS: usesTLS)
  }

  /// `mqtt://HOST:PORT`, or `mqtts://HOST:PORT` over TLS.
  public var description: String {
    let scheme = usesTLS ? "mqtts" : "mqtt"
    return host.contains(":") ? "\(scheme)://[\(host)]:\(port)" : "\(scheme)://\(host):\(port)"
  }
}
