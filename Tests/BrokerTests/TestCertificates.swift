import Foundation
import TestSupport

/// A certificate authority and server certificates made with `openssl` in a temporary
/// directory, for a TLS broker of the test's own: `ca.crt` signs `server.crt` (for 127.0.0.1
/// and localhost) and `elsewhere.crt` (for elsewhere.example only); `other-ca.crt` signs nothing
/// the broker shows. Client certificates (``clientCertificate(_:)``): `alpha` and `dashboard`
/// signed by `ca.crt` (their common names: the user names under `use_identity_as_username`),
/// `stranger` by `other-ca.crt`; each key file is mode 0600.
struct TestCertificates {
  let directory: TemporaryDirectory

  var authority: String { directory.path("ca.crt") }
  var otherAuthority: String { directory.path("other-ca.crt") }

  /// `openssl`, or `nil` when it is not installed (`.ci/run` installs it).
  static let executable: String? = {
    let candidates: [String] = ["/usr/bin/openssl", "/usr/local/bin/openssl"]
    return candidates.first { access($0, X_OK) == 0 }
  }()

  /// Makes the two authorities and the two server certificates (P-256 keys: quick to make).
  init(in directory: TemporaryDirectory) throws {
    self.directory = directory
    for name in ["ca", "other-ca"] {
      try Self.openssl(
        [
          "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
          "-keyout", "\(name).key", "-out", "\(name).crt", "-days", "2", "-subj", "/CN=wormhole test \(name)",
        ], in: directory)
    }
    for (name, names) in [("server", "IP:127.0.0.1,DNS:localhost"), ("elsewhere", "DNS:elsewhere.example")] {
      try Self.sign(name, by: "ca", extensions: "subjectAltName=\(names)\n", in: directory)
    }
    for (name, authority) in [("alpha", "ca"), ("dashboard", "ca"), ("stranger", "other-ca")] {
      try Self.sign(name, by: authority, extensions: "extendedKeyUsage=clientAuth\n", in: directory)
      chmod(directory.path("\(name).key"), 0o600)
    }
  }

  /// The certificate and key files of the client `name` (`alpha`, `dashboard`, `stranger`).
  func clientCertificate(_ name: String) -> (certificate: String, key: String) {
    (directory.path("\(name).crt"), directory.path("\(name).key"))
  }

  /// The environment that gives a verb the client certificate `name` and the broker's CA.
  func clientEnvironment(_ name: String) -> [String: String] {
    [
      "WORMHOLE_MQTT_CAFILE": authority, "WORMHOLE_MQTT_CERTFILE": directory.path("\(name).crt"),
      "WORMHOLE_MQTT_KEYFILE": directory.path("\(name).key"),
    ]
  }

  /// Writes the key at `path` to `encrypted`, encrypted with a passphrase (mode 0600).
  static func encryptKey(_ path: String, to encrypted: String) throws {
    let directory = TemporaryDirectory(prefix: "encrypt")
    defer { directory.remove() }
    try openssl(
      ["pkey", "-in", path, "-out", encrypted, "-aes256", "-passout", "pass:secret"], in: directory)
    chmod(encrypted, 0o600)
  }

  /// A key and a certificate for the common name `name`, signed by `authority`.
  private static func sign(
    _ name: String, by authority: String, extensions: String, in directory: TemporaryDirectory
  ) throws {
    try openssl(
      [
        "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
        "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(name)",
      ], in: directory)
    directory.write("\(name).ext", extensions)
    try openssl(
      [
        "x509", "-req", "-in", "\(name).csr", "-CA", "\(authority).crt", "-CAkey", "\(authority).key",
        "-CAcreateserial", "-out", "\(name).crt", "-days", "2", "-extfile", "\(name).ext",
      ], in: directory)
  }

  /// The broker's listener settings for the certificate `name` (`server` or `elsewhere`).
  func listenerSettings(_ name: String = "server") -> String {
    """
    cafile \(authority)
    certfile \(directory.path("\(name).crt"))
    keyfile \(directory.path("\(name).key"))
    allow_anonymous true
    """
  }

  private static func openssl(_ arguments: [String], in directory: TemporaryDirectory) throws {
    guard let executable else {
      throw BrokerTestError("openssl is not installed: apt install openssl (the TLS tests make certificates)")
    }
    let said = Collector<[UInt8]>()
    let process = try ChildProcess(
      executable, arguments: arguments, directory: directory.path, standardError: .pipe { said.append($0) })
    // Its standard error to its end (the empty chunk), then its status.
    said.wait(seconds: 60) { $0.last?.isEmpty == true }
    process.wait()
    guard process.terminationStatus == 0 else {
      throw BrokerTestError(
        "openssl \(arguments.joined(separator: " ")) failed: \(String(decoding: said.values.joined(), as: UTF8.self))"
      )
    }
  }
}
