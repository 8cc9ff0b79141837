import Foundation
import Glibc
import MQTTClient
import TestSupport
import Testing

/// TLS client certificates (`WORMHOLE_MQTT_CERTFILE`, `WORMHOLE_MQTT_KEYFILE`) against a mosquitto
/// that requires one (`require_certificate true`) and takes its common name as the user name
/// (`use_identity_as_username true`), so that the README's ACL applies per certificate.
@Suite(
  .enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"), .serialized)
struct ClientCertificateTests {
  /// A broker over TLS that lets in only clients with a certificate signed by the test's CA,
  /// each under its certificate's common name, confined by the README's ACL.
  static func certificateBroker(_ made: TestCertificates) throws -> TestBroker {
    try TestBroker(usesTLS: true) { directory in
      directory.write("acl", BrokerSecurityTests.acl)
      return made.listenerSettings() + """

        require_certificate true
        use_identity_as_username true
        acl_file \(directory.path("acl"))
        """
    }
  }

  @Test func aClientCertificateLetsABridgeInAndNoneOrAStrangersIsRefusedInWords() throws {
    let certificates = TemporaryDirectory(prefix: "client-certificates")
    defer { certificates.remove() }
    let made = try TestCertificates(in: certificates)
    let broker = try Self.certificateBroker(made)
    defer { broker.stop() }
    let home = TemporaryDirectory(prefix: "client-certificate-home")
    defer { home.remove() }
    let container = URL(fileURLWithPath: home.path + "/container").standardizedFileURL.path
    try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)

    // The library: the dashboard's certificate lets it in, as the user "dashboard" of the ACL.
    let dashboard = made.clientCertificate("dashboard")
    let watcher = try BrokerSecurityTests.Client(
      broker.address, identifier: "watcher",
      options: MQTTConnectionOptions(
        certificateAuthorityFile: made.authority, certificateFile: dashboard.certificate,
        keyFile: dashboard.key))
    #expect(watcher.accepted(), "\(watcher.events.values)")
    try watcher.client.subscribe("wormhole/v1/machines/#", quality: .atLeastOnce)

    // A bridge with alpha's certificate is alpha: its machine's topics are its own.
    let bridge = try WormholeChild(
      ["bridge", "--broker", broker.url, "--container", container, "--name", "alpha"],
      environment: made.clientEnvironment("alpha"))
    defer { bridge.stop() }
    let online = MQTTMessage(
      topic: "wormhole/v1/machines/alpha/presence", payload: bytes("online"), quality: .atLeastOnce)
    watcher.events.wait { _ in watcher.messages.contains(online) }
    #expect(watcher.messages.contains(online), "\(bridge.errorText)")
    #expect(!bridge.errorText.contains("did not accept"), "\(bridge.errorText)")
    // The same certificate claiming another machine: the ACL, keyed by the certificate, refuses.
    let intruder = try WormholeChild(
      ["bridge", "--broker", broker.url, "--container", container, "--name", "beta"],
      environment: made.clientEnvironment("alpha"))
    defer { intruder.stop() }
    #expect(
      intruder.waitForError(
        containing: "the broker did not accept the publication on wormhole/v1/machines/beta/presence"),
      "\(intruder.errorText)")
    watcher.client.disconnect()

    // dump with the CA but no certificate: exit 3, naming the missing certificate.
    let ca = [MQTTConnectionOptions.certificateAuthorityFileVariable: made.authority]
    let without = try WormholeChild.run(["dump", "--broker", broker.url], environment: ca)
    #expect(without.status == 3, "\(without.errors)")
    #expect(
      without.errors.contains("requires a client certificate: set WORMHOLE_MQTT_CERTFILE"),
      "\(without.errors)")
    // A certificate of another CA: exit 3, saying the broker refused it.
    let stranger = try WormholeChild.run(
      ["dump", "--broker", broker.url], environment: made.clientEnvironment("stranger"))
    #expect(stranger.status == 3, "\(stranger.errors)")
    #expect(
      stranger.errors.contains("refused the client certificate"), "\(stranger.errors)")
    // With one: in.
    let admitted = try WormholeChild.run(
      ["dump", "--broker", broker.url], environment: made.clientEnvironment("dashboard"))
    #expect(admitted.status == 0, "\(admitted.errors)")
  }

  @Test func aKeyFileOthersCanReadOrACertificateWithoutItsKeyIsRefusedBeforeConnecting() throws {
    let certificates = TemporaryDirectory(prefix: "client-certificates")
    defer { certificates.remove() }
    let made = try TestCertificates(in: certificates)
    let broker = try Self.certificateBroker(made)
    defer { broker.stop() }
    let alpha = made.clientCertificate("alpha")
    chmod(alpha.key, 0o640)
    let exposed = try WormholeChild.run(
      ["dump", "--broker", broker.url], environment: made.clientEnvironment("alpha"))
    #expect(exposed.status == 3, "\(exposed.errors)")
    #expect(
      exposed.errors.contains(
        "WORMHOLE_MQTT_KEYFILE \(alpha.key) can be read or written by its group or others"),
      "\(exposed.errors)")
    #expect(exposed.errors.contains("chmod 600"), "\(exposed.errors)")
    chmod(alpha.key, 0o600)
    var halves = made.clientEnvironment("alpha")
    halves["WORMHOLE_MQTT_KEYFILE"] = nil
    let half = try WormholeChild.run(["dump", "--broker", broker.url], environment: halves)
    #expect(half.status == 3, "\(half.errors)")
    #expect(half.errors.contains("set both"), "\(half.errors)")
    // A key of another certificate, and an encrypted one (no terminal prompt: it fails), are
    // named as the cause.
    var mismatched = made.clientEnvironment("alpha")
    mismatched["WORMHOLE_MQTT_KEYFILE"] = made.clientCertificate("dashboard").key
    try TestCertificates.encryptKey(alpha.key, to: certificates.path("encrypted.key"))
    var encrypted = made.clientEnvironment("alpha")
    encrypted["WORMHOLE_MQTT_KEYFILE"] = certificates.path("encrypted.key")
    for environment in [mismatched, encrypted] {
      let unusable = try WormholeChild.run(["dump", "--broker", broker.url], environment: environment)
      #expect(unusable.status == 3, "\(unusable.errors)")
      #expect(
        unusable.errors.contains("the key not encrypted (no passphrase) and the certificate's own"),
        "\(unusable.errors)")
    }
    // A client certificate with a plain-text address is a likely mistake, as a CA file is.
    let plain = try WormholeChild.run(
      ["dump", "--broker", "mqtt://127.0.0.1:\(broker.address.port)"],
      environment: ["WORMHOLE_MQTT_CERTFILE": alpha.certificate, "WORMHOLE_MQTT_KEYFILE": alpha.key])
    #expect(plain.status == 3, "\(plain.errors)")
    #expect(plain.errors.contains("is plain text"), "\(plain.errors)")
  }

  /// A client certificate without `WORMHOLE_MQTT_CAFILE`: the broker's certificate is checked
  /// against the system's CAs (libmosquitto's `tls_use_os_certs`, OpenSSL's default verify
  /// paths), which the child's `SSL_CERT_FILE` points at the test's CA, so that the system's
  /// store is neither needed nor touched. Another CA there: refused (exit 3), in words.
  @Test func aClientCertificateWithoutACAFileTrustsTheSystemsCAs() throws {
    let certificates = TemporaryDirectory(prefix: "client-certificates")
    defer { certificates.remove() }
    let made = try TestCertificates(in: certificates)
    let broker = try Self.certificateBroker(made)
    defer { broker.stop() }
    var environment = made.clientEnvironment("dashboard")
    environment.removeValue(forKey: MQTTConnectionOptions.certificateAuthorityFileVariable)
    environment["SSL_CERT_DIR"] = certificates.path + "/no-such-directory"
    environment["SSL_CERT_FILE"] = made.authority
    let trusted = try WormholeChild.run(["dump", "--broker", broker.url], environment: environment)
    #expect(trusted.status == 0, "\(trusted.errors)")
    // A bridge too: in as alpha, and still confined by the ACL to its machine's topics.
    let home = TemporaryDirectory(prefix: "client-certificate-home")
    defer { home.remove() }
    let container = URL(fileURLWithPath: home.path + "/container").standardizedFileURL.path
    try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
    var alpha = made.clientEnvironment("alpha")
    alpha.removeValue(forKey: MQTTConnectionOptions.certificateAuthorityFileVariable)
    alpha.merge(environment.filter { $0.key.hasPrefix("SSL_CERT_") }) { _, new in new }
    let intruder = try WormholeChild(
      ["bridge", "--broker", broker.url, "--container", container, "--name", "beta"], environment: alpha)
    defer { intruder.stop() }
    #expect(
      intruder.waitForError(
        containing: "the broker did not accept the publication on wormhole/v1/machines/beta/presence"),
      "\(intruder.errorText)")
    // The system's CAs without the broker's: its certificate fails to verify.
    environment["SSL_CERT_FILE"] = made.otherAuthority
    let untrusted = try WormholeChild.run(["dump", "--broker", broker.url], environment: environment)
    #expect(untrusted.status == 3, "\(untrusted.errors)")
    #expect(untrusted.errors.contains("certificate verify failed"), "\(untrusted.errors)")
    #expect(
      untrusted.errors.contains("set WORMHOLE_MQTT_CAFILE to the broker's CA file"), "\(untrusted.errors)")
  }

  /// The options from the environment, without a broker: both files or neither, the key private.
  @Test func certificateAndKeyComeFromTheEnvironmentBothOrNeither() throws {
    let home = TemporaryDirectory(prefix: "certificate-options")
    defer { home.remove() }
    home.write("client.crt", "certificate")
    home.write("client.key", "key")
    chmod(home.path("client.key"), 0o600)
    func options(_ values: [String: String]) throws(MQTTError) -> MQTTConnectionOptions {
      try MQTTConnectionOptions { values[$0] }
    }
    let both = try options([
      "WORMHOLE_MQTT_CERTFILE": home.path("client.crt"), "WORMHOLE_MQTT_KEYFILE": home.path("client.key"),
    ])
    #expect(both.certificateFile == home.path("client.crt") && both.keyFile == home.path("client.key"))
    #expect("\(both)".contains("client certificate"))
    for values in [
      ["WORMHOLE_MQTT_CERTFILE": home.path("client.crt")], ["WORMHOLE_MQTT_KEYFILE": home.path("client.key")],
      ["WORMHOLE_MQTT_CERTFILE": home.path("missing.crt"), "WORMHOLE_MQTT_KEYFILE": home.path("client.key")],
      ["WORMHOLE_MQTT_CERTFILE": home.path("client.crt"), "WORMHOLE_MQTT_KEYFILE": home.path("missing.key")],
      ["WORMHOLE_MQTT_CERTFILE": home.path("client.crt"), "WORMHOLE_MQTT_KEYFILE": home.path("")],
    ] {
      #expect(throws: MQTTError.self, "\(values)") { try options(values) }
    }
    for mode: mode_t in [0o644, 0o640, 0o604, 0o620, 0o602] {
      chmod(home.path("client.key"), mode)
      #expect(throws: MQTTError.self, "\(mode)") {
        try options([
          "WORMHOLE_MQTT_CERTFILE": home.path("client.crt"), "WORMHOLE_MQTT_KEYFILE": home.path("client.key"),
        ])
      }
    }
  }
}
