/// Where a broker listens: `mqtt://HOST:PORT` (the port defaults to 1883).
public struct BrokerAddress: Sendable, Hashable, CustomStringConvertible {
  /// The port MQTT brokers listen on when the address names none.
  public static let defaultPort = 1883

  /// The host name or address, as given (an IPv6 address without its brackets).
  public var host: String
  public var port: Int

  public init(host: String, port: Int = BrokerAddress.defaultPort) {
    self.host = host
    self.port = port
  }

  /// The address in `text`: `mqtt://HOST[:PORT]`, `HOST` an IPv6 address in brackets if it is one.
  /// Anything else (another scheme, a path, user information, a port out of range) is refused
  /// with what is wrong.
  public init(parsing text: String) throws(MQTTError) {
    let scheme = "mqtt://"
    guard text.hasPrefix(scheme) else {
      if text.hasPrefix("mqtts://") {
        throw .invalidAddress(text, reason: "TLS (mqtts://) is not supported yet; use mqtt://HOST:PORT")
      }
      throw .invalidAddress(text, reason: "it does not start with mqtt://")
    }
    var rest = Substring(text.dropFirst(scheme.count))
    if rest.hasSuffix("/") { rest = rest.dropLast() }
    guard !rest.contains("/"), !rest.contains("@"), !rest.contains("?") else {
      throw .invalidAddress(text, reason: "give only mqtt://HOST:PORT (no path, user or query)")
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
    var number = BrokerAddress.defaultPort
    if let port {
      guard let parsed = Int(port), (1...65535).contains(parsed), port.allSatisfy(\.isASCII) else {
        throw .invalidAddress(text, reason: "the port must be a number from 1 to 65535")
      }
      number = parsed
    }
    self.init(host: String(host), port: number)
  }

  /// `mqtt://HOST:PORT`.
  public var description: String {
    host.contains(":") ? "mqtt://[\(host)]:\(port)" : "mqtt://\(host):\(port)"
  }
}
