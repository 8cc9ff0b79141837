import ArchivedValues
import Glibc

/// How a client connects beyond its address: the credentials, the CA certificates that verify an
/// `mqtts://` broker, the client certificate that the broker may ask for, and the protocol version.
///
/// Every `--broker` user reads them from the environment (``init(environment:)``, which
/// ``MQTTClient/connect(to:keepAlive:)`` calls), never from the command line:
///
/// | Variable | Meaning |
/// | --- | --- |
/// | `WORMHOLE_MQTT_USERNAME` | the user name the broker knows this client by |
/// | `WORMHOLE_MQTT_PASSWORD_FILE` | a file holding the password (its first line); refused when its group or others may read or write it |
/// | `WORMHOLE_MQTT_PASSWORD` | the password itself (the file is better: the environment is inherited by children) |
/// | `WORMHOLE_MQTT_CAFILE` | the CA certificates (PEM) that verify an `mqtts://` broker; the system's when unset |
/// | `WORMHOLE_MQTT_CERTFILE` | this client's certificate (PEM), for a broker that requires one (`require_certificate true`) |
/// | `WORMHOLE_MQTT_KEYFILE` | its private key (PEM, not encrypted); refused when its group or others may read or write it |
/// | `WORMHOLE_MQTT_PROTOCOL` | `5` (the default) or `3.1.1`, for a broker without MQTT 5 |
///
/// The description never shows the password.
public struct MQTTConnectionOptions: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
  /// The MQTT versions a client can speak.
  public enum ProtocolVersion: String, Sendable, CaseIterable {
    /// MQTT 3.1.1: the broker refuses nothing it can say so; a publication its ACL denies is
    /// acknowledged and dropped.
    case v3_1_1 = "3.1.1"
    /// MQTT 5: the broker's acknowledgements carry reason codes, so a denied publication or
    /// subscription is reported (``MQTTEvent/refused(_:)``).
    case v5 = "5"
  }

  /// The environment variables read by ``init(environment:)``.
  public static let usernameVariable = "WORMHOLE_MQTT_USERNAME"
  public static let passwordVariable = "WORMHOLE_MQTT_PASSWORD"
  public static let passwordFileVariable = "WORMHOLE_MQTT_PASSWORD_FILE"
  public static let certificateAuthorityFileVariable = "WORMHOLE_MQTT_CAFILE"
  public static let certificateFileVariable = "WORMHOLE_MQTT_CERTFILE"
  public static let keyFileVariable = "WORMHOLE_MQTT_KEYFILE"
  public static let protocolVariable = "WORMHOLE_MQTT_PROTOCOL"

  /// The system's CA certificates as a directory (Debian's `ca-certificates`): what libmosquitto
  /// is given with a client certificate when no CA file is set, as it takes one only with either.
  static let systemCertificateDirectory = "/etc/ssl/certs"

  /// The largest password file read (MQTT's limit for a password is 65535 bytes).
  static let passwordByteLimit = 65535

  /// The user name, or `nil` to connect anonymously.
  public var username: String?
  /// The password (only with a user name).
  public var password: String?
  /// The CA certificates (a PEM file) that verify an `mqtts://` broker; `nil` for the system's.
  public var certificateAuthorityFile: String?
  /// This client's certificate (a PEM file) for an `mqtts://` broker that asks for one; only
  /// with ``keyFile``.
  public var certificateFile: String?
  /// The private key of ``certificateFile`` (a PEM file, not encrypted).
  public var keyFile: String?
  public var protocolVersion: ProtocolVersion
  /// Under MQTT 5, how many seconds the broker keeps a persistent session (`cleanSession:
  /// false`) after its connection ends; `nil` (the default) for as long as it runs. Not read from
  /// the environment: the program that makes the client decides it.
  public var sessionExpiry: UInt32?
  /// The longest pause, in seconds, between two attempts to reconnect after the connection is
  /// lost: the first comes after 1 s, each later one a second later than the one before, up to
  /// this (``MQTTClient/defaultReconnectDelayLimit`` when `nil`). Not read from the environment:
  /// the program that makes the client decides it (a peer link keeps it well under its outage
  /// limit).
  public var reconnectDelayLimit: UInt32?

  public init(
    username: String? = nil, password: String? = nil, certificateAuthorityFile: String? = nil,
    certificateFile: String? = nil, keyFile: String? = nil, protocolVersion: ProtocolVersion = .v5
  ) {
    self.username = username
    self.password = password
    self.certificateAuthorityFile = certificateAuthorityFile
    self.certificateFile = certificateFile
    self.keyFile = keyFile
    self.protocolVersion = protocolVersion
  }

  /// The options the environment sets (see the type's table): `lookup` reads one variable
  /// (``processEnvironment(_:)`` for the process's; an empty value counts as unset). Throws
  /// ``MQTTError/invalidSettings(_:)`` with what to change: a password without a user name,
  /// both a password and a password file, a password file others may read, a certificate without
  /// its key (or a key without its certificate), a key file others may read, an unknown version.
  public init(environment lookup: (String) -> String?)
    throws(MQTTError)
  {
    func value(_ name: String) -> String? { lookup(name).flatMap { $0.isEmpty ? nil : $0 } }
    self.init(protocolVersion: .v5)
    username = value(Self.usernameVariable)
    let password = value(Self.passwordVariable)
    let passwordFile = value(Self.passwordFileVariable)
    if password != nil && passwordFile != nil {
      throw .invalidSettings(
        "both \(Self.passwordVariable) and \(Self.passwordFileVariable) are set: unset one")
    }
    if let passwordFile {
      self.password = try Self.readPassword(passwordFile)
    } else {
      self.password = password
    }
    if self.password != nil && username == nil {
      throw .invalidSettings("a password is set but no user name: set \(Self.usernameVariable) too")
    }
    for (name, text) in [(Self.usernameVariable, username), (Self.passwordVariable, self.password)] {
      if let text, text.utf8.contains(0) || text.utf8.count > 65535 {
        throw .invalidSettings("\(name) must have no NUL character and at most 65535 bytes")
      }
    }
    certificateAuthorityFile = value(Self.certificateAuthorityFileVariable)
    certificateFile = value(Self.certificateFileVariable)
    keyFile = value(Self.keyFileVariable)
    try checkClientCertificate()
    if let version = value(Self.protocolVariable) {
      guard let known = ProtocolVersion(rawValue: version) else {
        throw .invalidSettings(
          "\(Self.protocolVariable) is \(DisplayText.field(version)): it must be 5 or 3.1.1")
      }
      protocolVersion = known
    }
  }

  /// The process's environment variable `name`.
  public static func processEnvironment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }

  /// The password in `path`: its first line, without the line break. The file must be a regular
  /// file that neither its group nor others may read or write (checked on the opened file).
  static func readPassword(_ path: String) throws(MQTTError) -> String {
    let shown = DisplayText.field(path)
    let descriptor = try openPrivateFile(path, variable: passwordFileVariable, secret: "the password")
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count <= passwordByteLimit + 2 {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else {
        throw .invalidSettings(
          "\(passwordFileVariable) \(shown) cannot be read: \(String(cString: strerror(errno)))")
      }
      if count == 0 { break }
      bytes += chunk[..<count]
    }
    var line = bytes.prefix { $0 != 0x0A }
    if line.last == 0x0D { line = line.dropLast() }
    guard !line.isEmpty else { throw .invalidSettings("\(passwordFileVariable) \(shown) is empty") }
    guard line.count <= passwordByteLimit, !line.contains(0) else {
      throw .invalidSettings(
        "\(passwordFileVariable) \(shown): the password must have no NUL and at most 65535 bytes")
    }
    guard let password = String(validating: line, as: UTF8.self) else {
      throw .invalidSettings("\(passwordFileVariable) \(shown): the password is not UTF-8")
    }
    return password
  }

  /// Checks the client certificate and its key: both or neither; the certificate readable, the
  /// key a regular file that neither its group nor others may read or write (as the password
  /// file), so that a key others can read is refused before anything is sent.
  func checkClientCertificate() throws(MQTTError) {
    switch (certificateFile, keyFile) {
    case (nil, nil):
      return
    case (_?, nil):
      throw .invalidSettings(
        "\(Self.certificateFileVariable) is set but not \(Self.keyFileVariable): set both (the "
          + "client certificate and its private key) or neither")
    case (nil, _?):
      throw .invalidSettings(
        "\(Self.keyFileVariable) is set but not \(Self.certificateFileVariable): set both (the "
          + "client certificate and its private key) or neither")
    case (let certificate?, let key?):
      guard access(certificate, R_OK) == 0 else {
        throw .invalidSettings(
          "\(Self.certificateFileVariable) \(DisplayText.field(certificate)) cannot be read: "
            + String(cString: strerror(errno)))
      }
      close(try Self.openPrivateFile(key, variable: Self.keyFileVariable, secret: "the private key"))
    }
  }

  /// Opens `path` for reading: a regular file that neither its group nor others may read or
  /// write (checked on the opened file), since it holds `secret`. The caller closes it.
  static func openPrivateFile(_ path: String, variable: String, secret: String) throws(MQTTError) -> Int32 {
    let shown = DisplayText.field(path)
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else {
      throw .invalidSettings("\(variable) \(shown) cannot be opened: \(String(cString: strerror(errno)))")
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let reason = String(cString: strerror(errno))
      close(descriptor)
      throw .invalidSettings("\(variable) \(shown): \(reason)")
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      close(descriptor)
      throw .invalidSettings("\(variable) \(shown) is not a regular file")
    }
    let mode = status.st_mode & 0o777
    guard mode & 0o077 == 0 else {
      close(descriptor)
      throw .invalidSettings(
        "\(variable) \(shown) can be read or written by its group or others (mode "
          + "0\(String(mode, radix: 8))), so \(secret) is not secret: chmod 600 \(shown)")
    }
    return descriptor
  }

  /// The words for a failed TLS connection when its cause is the client certificate (the
  /// broker's alert: it asked for a certificate and got none, or refused the one sent), with
  /// what to set; `nil` when the failure says nothing of the client's certificate.
  static func clientCertificateAdvice(_ reason: String, certificateFile: String?) -> String? {
    let lowered = reason.lowercased()
    // OpenSSL's words for the broker's alerts: TLS 1.3 "certificate required", TLS 1.2's
    // "handshake failure" when no certificate came; a certificate the broker refused.
    let missing = ["alert certificate required", "peer did not return a certificate"]
    let refused = [
      "alert unknown ca", "alert bad certificate", "alert certificate unknown", "alert certificate expired",
      "alert certificate revoked", "alert unsupported certificate", "alert decrypt error",
    ]
    // Under TLS 1.3 the broker checks the client's certificate after the handshake: when its
    // alert is not read before the connection closes, all that is left is the closing.
    // (libmosquitto's words, or the system's: EPROTO, ECONNRESET, EPIPE.)
    let closings = [
      "protocol error", "a network protocol error", "the connection was lost", "connection reset by peer",
      "broken pipe",
    ]
    let closed = !lowered.contains("openssl") && closings.contains(where: lowered.hasPrefix)
    let closing = closed ? " (the broker closed the TLS connection before answering)" : ""
    guard let certificateFile else {
      let handshake = lowered.contains("alert handshake failure")
      guard missing.contains(where: lowered.contains) || handshake || closed else { return nil }
      return reason + closing
        + ": the broker \(closed ? "likely " : "")requires a client certificate: set"
        + " \(certificateFileVariable) and \(keyFileVariable) to this client's certificate and private key (PEM)"
        + (closed ? " (or the port is a plain-text listener: then use mqtt://, or its TLS port)" : "")
    }
    // libmosquitto's words when it cannot load the files (an encrypted key, a key of another
    // certificate): before anything reaches the broker.
    let unusable = [
      "unable to load client certificate", "unable to load client key", "certificate/key are inconsistent",
    ]
    if unusable.contains(where: lowered.contains) {
      return reason
        + ": the client certificate \(DisplayText.field(certificateFile)) (\(certificateFileVariable)) and"
        + " its key (\(keyFileVariable)) must be PEM files, the key not encrypted (no passphrase) and"
        + " the certificate's own"
    }
    let named = refused.contains(where: lowered.contains) || missing.contains(where: lowered.contains)
    guard named || closed else { return nil }
    return reason + closing
      + ": the broker \(closed ? "likely " : "")refused the client certificate \(DisplayText.field(certificateFile))"
      + " (\(certificateFileVariable)): it must be signed by a CA the broker trusts (its cafile),"
      + " be valid now, and match \(keyFileVariable)"
  }

  /// The options, with the password hidden.
  public var description: String {
    var parts = ["MQTT \(protocolVersion.rawValue)"]
    if let username { parts.append("user \(DisplayText.field(username))") }
    if password != nil { parts.append("a password") }
    if let certificateAuthorityFile { parts.append("CA file \(DisplayText.field(certificateAuthorityFile))") }
    if let certificateFile { parts.append("client certificate \(DisplayText.field(certificateFile))") }
    if let keyFile { parts.append("key file \(DisplayText.field(keyFile))") }
    return parts.joined(separator: ", ")
  }

  /// The options as `dump` shows them: without the password.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "username": username as Any, "password": (password == nil ? "none" : "(hidden)") as Any,
        "certificateAuthorityFile": certificateAuthorityFile as Any,
        "certificateFile": certificateFile as Any,
        "keyFile": keyFile as Any, "protocolVersion": protocolVersion,
      ])
  }
}
