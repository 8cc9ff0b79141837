import Foundation
import Glibc
import MQTTClient
import TestSupport
import Testing

/// Credentials, TLS, the broker's ACL and oversized payloads: each test against a mosquitto of
/// its own, configured for what it shows; the verbs are `wormhole-tui` child processes with an
/// environment of the test's choosing.
@Suite(
  .enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"), .serialized)
struct BrokerSecurityTests {
  /// The users of ``credentialBroker(acl:)`` and their passwords.
  static let users = [
    "alpha": "alpha-secret", "beta": "beta-secret", "dashboard": "dashboard-secret",
    "viewer": "viewer-secret",
  ]

  /// The README's ACL: each machine its own topics (its bridge reads its own requests) and the
  /// replies to any client's; every client its own reply topic; the dashboard reads every
  /// machine's and may send requests to alpha; the viewer only reads.
  static let acl = """
    # Each machine (its user name) reads and writes only its own topics: its bridge reads
    # the remote-write requests sent to it, and no other machine's.
    pattern readwrite wormhole/v1/machines/%u/#
    # Every client reads (and writes) only its own reply topic, named by its client identifier.
    pattern readwrite wormhole/v1/clients/%c/replies

    # The dashboard reads every machine's, and may send remote writes to alpha only.
    user dashboard
    topic read wormhole/v1/machines/#
    topic write wormhole/v1/machines/alpha/requests

    # A viewer reads every machine's and writes nothing.
    user viewer
    topic read wormhole/v1/machines/#

    # Each machine's bridge answers remote writes on the requesting client's reply topic.
    user alpha
    topic write wormhole/v1/clients/+/replies
    user beta
    topic write wormhole/v1/clients/+/replies
    """

  /// A broker that lets in only ``users`` (a `password_file` made by `mosquitto_passwd`), with
  /// `acl` as its `acl_file` when given.
  static func credentialBroker(acl: String? = nil) throws -> TestBroker {
    try TestBroker(usesTLS: false) { directory in
      let file = directory.path("passwords")
      for (index, (user, password)) in users.sorted(by: { $0.key < $1.key }).enumerated() {
        try Self.passwd((index == 0 ? ["-c"] : []) + ["-b", file, user, password])
      }
      var lines = "allow_anonymous false\npassword_file \(file)"
      if let acl {
        directory.write("acl", acl)
        lines += "\nacl_file \(directory.path("acl"))"
      }
      return lines
    }
  }

  static func passwd(_ arguments: [String]) throws {
    let candidates: [String] = ["/usr/bin/mosquitto_passwd", "/usr/sbin/mosquitto_passwd"]
    guard let executable = candidates.first(where: { access($0, X_OK) == 0 }) else {
      throw BrokerTestError("mosquitto_passwd is not installed: apt install mosquitto")
    }
    guard try ChildProcess(executable, arguments: arguments).wait() == 0 else {
      throw BrokerTestError("mosquitto_passwd \(arguments) failed")
    }
  }

  /// A password file only its owner may read, for `user`, and the environment that names it.
  static func credentials(_ user: String, in directory: TemporaryDirectory) -> [String: String] {
    let file = directory.path("\(user).password")
    directory.write("\(user).password", (users[user] ?? "") + "\n")
    chmod(file, 0o600)
    return [
      MQTTConnectionOptions.usernameVariable: user, MQTTConnectionOptions.passwordFileVariable: file,
    ]
  }

  /// A connected client (with `options`) whose events are collected, or the failure to connect.
  final class Client: Sendable {
    let events = Collector<MQTTEvent>()
    let client: MQTTClient

    init(
      _ broker: BrokerAddress, identifier: String, options: MQTTConnectionOptions,
      maximumPayloadBytes: Int = MQTTClient.defaultMaximumPayloadBytes
    ) throws {
      let events = events
      client = try MQTTClient(
        clientIdentifier: identifier, cleanSession: true, maximumPayloadBytes: maximumPayloadBytes
      ) { events.append($0) }
      try client.connect(to: broker, options: options)
    }

    /// Waits for the broker's answer to the connection: whether it accepted.
    func accepted() -> Bool {
      let seen = events.wait {
        $0.contains { if case .refused = $0 { true } else { $0 == .connected } }
      }
      return seen.contains(.connected)
    }

    var messages: [MQTTMessage] {
      events.values.compactMap { if case .received(let message) = $0 { return message } else { return nil } }
    }

    var refusals: [String] {
      events.values.compactMap { if case .refused(let text) = $0 { return text } else { return nil } }
    }
  }

  // MARK: Credentials

  @Test func credentialsFromAPasswordFileLetEveryBrokerVerbInAndNoneWithout() throws {
    let broker = try Self.credentialBroker()
    defer { broker.stop() }
    let home = TemporaryDirectory(prefix: "credentials")
    defer { home.remove() }
    // The library: the options let a client in; a wrong password is refused in words.
    let good = try Client(
      broker.address, identifier: "good",
      options: MQTTConnectionOptions(username: "alpha", password: "alpha-secret"))
    #expect(good.accepted())
    good.client.disconnect()
    let bad = try Client(
      broker.address, identifier: "bad", options: MQTTConnectionOptions(username: "alpha", password: "wrong"))
    #expect(!bad.accepted())
    #expect(
      bad.refusals.first?.hasPrefix("Not authorized (set WORMHOLE_MQTT_USERNAME and") == true,
      "\(bad.events.values)")
    bad.client.disconnect()
    // The verbs: with the environment's credentials in, without them refused (exit 3).
    let admitted = try WormholeChild.run(
      ["dump", "--broker", broker.url], environment: Self.credentials("dashboard", in: home))
    #expect(admitted.status == 0, "\(admitted.errors)")
    let anonymous = try WormholeChild.run(["dump", "--broker", broker.url])
    #expect(anonymous.status == 3)
    #expect(anonymous.errors.contains("Not authorized (set WORMHOLE_MQTT_USERNAME"), "\(anonymous.errors)")
    // A password file others can read is refused, saying so, before anything is sent.
    chmod(home.path("dashboard.password"), 0o644)
    let exposed = try WormholeChild.run(
      ["dump", "--broker", broker.url],
      environment: [
        MQTTConnectionOptions.usernameVariable: "dashboard",
        MQTTConnectionOptions.passwordFileVariable: home.path("dashboard.password"),
      ])
    #expect(exposed.status == 3)
    #expect(
      exposed.errors.contains("can be read or written by its group or others (mode 0644)"),
      "\(exposed.errors)")
    #expect(exposed.errors.contains("chmod 600"))
  }

  @Test func anAddressWithCredentialsIsAUsageErrorForEveryVerbAndIsNotRepeated() throws {
    let home = TemporaryDirectory(prefix: "address-credentials")
    defer { home.remove() }
    let address = "mqtt://alpha:alpha-secret@127.0.0.1:1883"
    for arguments in [
      ["dump", "--broker", address], ["bridge", "--broker", address, "--container", home.path],
      ["device", "run", "--pair", "demo", "--role", "watch", "--home", home.path, "--broker", address],
    ] {
      let result = try WormholeChild.run(arguments)
      #expect(result.status == 2, "\(arguments): \(result.errors)")
      #expect(result.errors.contains("WORMHOLE_MQTT_PASSWORD_FILE"), "\(arguments): \(result.errors)")
      #expect(!result.errors.contains("alpha-secret"), "\(arguments): \(result.errors)")
    }
  }

  // MARK: TLS

  @Test func tlsWorksWithTheBrokersCAAndFailsClearlyWithoutItOrWithAnother() throws {
    let certificates = TemporaryDirectory(prefix: "certificates")
    defer { certificates.remove() }
    let made = try TestCertificates(in: certificates)
    let broker = try TestBroker(usesTLS: true) { _ in made.listenerSettings() }
    defer { broker.stop() }
    #expect(broker.url.hasPrefix("mqtts://127.0.0.1:"))
    // The library, with the CA: a message goes round.
    let client = try Client(
      broker.address, identifier: "tls",
      options: MQTTConnectionOptions(certificateAuthorityFile: made.authority))
    #expect(client.accepted())
    try client.client.subscribe("tls/#", quality: .atLeastOnce)
    #expect(
      try client.client.publish(
        bytes("secret"), to: "tls/a", quality: .atLeastOnce, retained: true, timeout: 5))
    client.events.wait { _ in !client.messages.isEmpty }
    #expect(client.messages.first?.payload == bytes("secret"))
    client.client.disconnect()
    // dump --broker mqtts:// with the CA file from the environment.
    let ca = [MQTTConnectionOptions.certificateAuthorityFileVariable: made.authority]
    let withCA = try WormholeChild.run(["dump", "--broker", broker.url], environment: ca)
    #expect(withCA.status == 0, "\(withCA.errors)")
    // Without it (the system's CAs do not know ours) and with another CA: exit 3, in words.
    let other = [MQTTConnectionOptions.certificateAuthorityFileVariable: made.otherAuthority]
    for environment in [[:], other] {
      let refused = try WormholeChild.run(["dump", "--broker", broker.url], environment: environment)
      #expect(refused.status == 3, "\(environment): \(refused.errors)")
      #expect(refused.errors.contains("certificate verify failed"), "\(refused.errors)")
      #expect(
        refused.errors.contains("set WORMHOLE_MQTT_CAFILE to the broker's CA file"), "\(refused.errors)")
      #expect(refused.errors.contains("nothing was sent in plain text"), "\(refused.errors)")
    }
    // A CA file with a plain address is a likely mistake: refused, never plain text quietly.
    let plain = "mqtt://127.0.0.1:\(broker.address.port)"
    let mixed = try WormholeChild.run(["dump", "--broker", plain], environment: ca)
    #expect(mixed.status == 3)
    #expect(mixed.errors.contains("is plain text: use mqtts://127.0.0.1:PORT for TLS"), "\(mixed.errors)")
  }

  /// Without `WORMHOLE_MQTT_CAFILE` the system's CAs are OpenSSL's default paths (libmosquitto's
  /// `tls_use_os_certs`), which a child's `SSL_CERT_FILE` points at the test's CA: the system's
  /// store is neither needed nor touched.
  @Test func withoutACAFileTheBrokerIsCheckedAgainstTheSystemsCAs() throws {
    let certificates = TemporaryDirectory(prefix: "certificates")
    defer { certificates.remove() }
    let made = try TestCertificates(in: certificates)
    let broker = try TestBroker(usesTLS: true) { _ in made.listenerSettings() }
    defer { broker.stop() }
    let system = ["SSL_CERT_DIR": certificates.path + "/no-such-directory"]
    let trusted = try WormholeChild.run(
      ["dump", "--broker", broker.url], environment: system.merging(["SSL_CERT_FILE": made.authority]) { $1 })
    #expect(trusted.status == 0, "\(trusted.errors)")
    let untrusted = try WormholeChild.run(
      ["dump", "--broker", broker.url],
      environment: system.merging(["SSL_CERT_FILE": made.otherAuthority]) { $1 })
    #expect(untrusted.status == 3, "\(untrusted.errors)")
    #expect(untrusted.errors.contains("certificate verify failed"), "\(untrusted.errors)")
  }

  /// `mqtts://` to a plain-text listener fails at once and says what is likely wrong (the port
  /// speaks no TLS), not only that a certificate was refused.
  @Test func tlsToAPlainTextListenerSaysThePortSpeaksNoTLS() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let result = try WormholeChild.run(["dump", "--broker", "mqtts://127.0.0.1:\(broker.address.port)"])
    #expect(result.status == 3, "\(result.errors)")
    // OpenSSL says "unexpected eof" when its words reach libmosquitto's log in time, else nothing:
    // either way the plain-text listener is named.
    #expect(result.errors.contains("plain-text listener"), "\(result.errors)")
    #expect(result.errors.contains("use mqtt://"), "\(result.errors)")
  }

  @Test func theBrokersCertificateMustNameItsHost() throws {
    let certificates = TemporaryDirectory(prefix: "certificates")
    defer { certificates.remove() }
    let made = try TestCertificates(in: certificates)
    // Signed by the right CA, but for elsewhere.example, not 127.0.0.1.
    let broker = try TestBroker(usesTLS: true) { _ in made.listenerSettings("elsewhere") }
    defer { broker.stop() }
    let events = Collector<MQTTEvent>()
    let client = try MQTTClient(clientIdentifier: "host", cleanSession: true) { events.append($0) }
    do {
      try client.connect(
        to: broker.address, options: MQTTConnectionOptions(certificateAuthorityFile: made.authority))
      Issue.record("a certificate for elsewhere.example was accepted for 127.0.0.1: \(events.values)")
      client.disconnect()
    } catch {
      guard case .connectionFailed(_, let reason) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(reason.contains("name \"127.0.0.1\"") || reason.contains("name 127.0.0.1"), "\(reason)")
      #expect(reason.hasPrefix("A TLS error occurred."), "\(reason)")
    }
  }

  /// libmosquitto's own loop ends for good after a TLS error, and a lost TLS connection is one:
  /// the client's loop runs it again, so it reconnects, and reports each failure.
  @Test func overTLSAClientReconnectsAfterABrokerRestartAndReportsACertificateThatFails() throws {
    let certificates = TemporaryDirectory(prefix: "certificates")
    defer { certificates.remove() }
    let made = try TestCertificates(in: certificates)
    let broker = try TestBroker(usesTLS: true) { _ in made.listenerSettings() }
    defer { broker.stop() }
    let client = try Client(
      broker.address, identifier: "reconnecting",
      options: MQTTConnectionOptions(certificateAuthorityFile: made.authority))
    #expect(client.accepted())
    // The broker comes back with a certificate for another host: each reconnection fails, in words.
    let configuration = try #require(broker.files.contents("mosquitto.conf"))
    broker.files.write(
      "mosquitto.conf",
      configuration.replacingOccurrences(of: "server.crt", with: "elsewhere.crt")
        .replacingOccurrences(of: "server.key", with: "elsewhere.key"))
    try broker.restart()
    let refusedHost = { (events: [MQTTEvent]) in
      events.contains {
        if case .disconnected(let reason) = $0 {
          reason.contains("host name verification failed")
        } else {
          false
        }
      }
    }
    // Under load the first attempts may meet the broker still starting (a lost connection, an
    // EOF); the refusal comes with a later attempt, after the client's backoff.
    let seen = client.events.wait(seconds: 40, until: refusedHost)
    #expect(refusedHost(seen), "\(seen)")
    #expect(seen.filter { $0 == .connected }.count == 1)
    // Back with its own certificate: the client connects again by itself.
    broker.files.write("mosquitto.conf", configuration)
    try broker.restart()
    let again = client.events.wait(seconds: 40) { $0.filter { $0 == .connected }.count >= 2 }
    #expect(again.filter { $0 == .connected }.count == 2, "\(again)")
    client.client.disconnect()
  }

  // MARK: ACL

  @Test func aBridgeIsRefusedOutsideItsMachinesTopicsAndAcceptedInside() throws {
    let broker = try Self.credentialBroker(acl: Self.acl)
    defer { broker.stop() }
    let home = TemporaryDirectory(prefix: "acl")
    defer { home.remove() }
    let container = URL(fileURLWithPath: home.path + "/container").standardizedFileURL.path
    try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
    let watcher = try Client(
      broker.address, identifier: "watcher",
      options: MQTTConnectionOptions(username: "dashboard", password: "dashboard-secret"))
    #expect(watcher.accepted())
    try watcher.client.subscribe("wormhole/v1/machines/#", quality: .atLeastOnce)
    // Authenticated as alpha, claiming to be beta: the broker refuses, the bridge says so.
    let intruder = try WormholeChild(
      ["bridge", "--broker", broker.url, "--container", container, "--name", "beta"],
      environment: Self.credentials("alpha", in: home))
    defer { intruder.stop() }
    let refusal =
      "the broker did not accept the publication on wormhole/v1/machines/beta/presence: Not authorized (MQTT reason code 135"
    #expect(intruder.waitForError(containing: refusal), "\(intruder.errorText)")
    // As alpha, for alpha: accepted, and the dashboard reads it.
    let bridge = try WormholeChild(
      ["bridge", "--broker", broker.url, "--container", container, "--name", "alpha"],
      environment: Self.credentials("alpha", in: home))
    defer { bridge.stop() }
    let online = MQTTMessage(
      topic: "wormhole/v1/machines/alpha/presence", payload: bytes("online"), quality: .atLeastOnce)
    watcher.events.wait { _ in watcher.messages.contains(online) }
    #expect(watcher.messages.contains(online), "\(bridge.errorText)")
    #expect(!watcher.messages.contains { $0.topic.hasPrefix("wormhole/v1/machines/beta/") })
    #expect(!bridge.errorText.contains("did not accept"), "\(bridge.errorText)")
    // The dashboard user may read, not write: a client hears why its publication went nowhere.
    #expect(throws: MQTTError.self) {
      _ = try watcher.client.publish(
        bytes("x"), to: "wormhole/v1/machines/alpha/presence", quality: .atLeastOnce, retained: false,
        timeout: 5)
    }
    watcher.client.disconnect()
  }

  /// Remote writes under the README's ACL: the dashboard's pass to alpha is applied; the
  /// viewer's is refused by the broker (MQTT 5: the verb says so at once) and the bridge applies
  /// nothing; beta cannot read alpha's requests.
  @Test func theACLLetsAllowedRemoteWritesThroughAndRefusesTheRest() throws {
    let broker = try Self.credentialBroker(acl: Self.acl)
    defer { broker.stop() }
    let home = TemporaryDirectory(prefix: "acl-writes")
    defer { home.remove() }
    let container = URL(fileURLWithPath: home.path + "/container").standardizedFileURL.path
    try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
    let watcher = try Client(
      broker.address, identifier: "watcher",
      options: MQTTConnectionOptions(username: "dashboard", password: "dashboard-secret"))
    #expect(watcher.accepted())
    try watcher.client.subscribe("wormhole/v1/machines/alpha/bridge", quality: .atLeastOnce)
    let bridge = try WormholeChild(
      [
        "bridge", "--broker", broker.url, "--container", container, "--name", "alpha",
        "--allow-remote-writes",
      ],
      environment: Self.credentials("alpha", in: home))
    defer { bridge.stop() }
    watcher.events.wait { _ in watcher.messages.contains { $0.topic.hasSuffix("/bridge") } }
    try #require(
      watcher.messages.contains { $0.topic.hasSuffix("/bridge") }, "\(bridge.errorText)")
    watcher.client.disconnect()

    // Beta, subscribed to every machine's requests, is handed only its own: mosquitto grants
    // the subscription and checks each message against the ACL as it delivers it.
    let spy = try Client(
      broker.address, identifier: "spy",
      options: MQTTConnectionOptions(username: "beta", password: "beta-secret"))
    #expect(spy.accepted())
    try spy.client.subscribe("wormhole/v1/machines/+/requests", quality: .atLeastOnce)

    // The dashboard may send alpha requests: applied, and its reply reaches it.
    let remote = ["pass", "--broker", broker.url, "--machine", "alpha", "--directory", container]
    let allowed = try WormholeChild.run(
      remote + ["score", "--string", "allowed"], environment: Self.credentials("dashboard", in: home))
    #expect(allowed.status == 0, "\(allowed.errors) \(bridge.errorText)")
    #expect(FileManager.default.fileExists(atPath: container + "/score.archive"))
    // The viewer may not: the broker refuses the request, the verb says so (exit 3) without
    // waiting for a reply, and the bridge applies nothing.
    let refused = try WormholeChild.run(
      remote + ["denied", "--string", "refused"], environment: Self.credentials("viewer", in: home))
    #expect(refused.status == 3, "\(refused.errors)")
    #expect(
      refused.errors.contains("the broker refused the request")
        && refused.errors.contains(
          "wormhole/v1/machines/alpha/requests: Not authorized (MQTT reason code 135"),
      "\(refused.errors)")
    #expect(!refused.errors.contains("no reply"), "\(refused.errors)")
    #expect(!FileManager.default.fileExists(atPath: container + "/denied.archive"))
    // The dashboard's request went to alpha before beta's own marker, which beta gets: alpha's
    // would have come first, had the ACL let it.
    #expect(
      try spy.client.publish(
        bytes("marker"), to: "wormhole/v1/machines/beta/requests", quality: .atLeastOnce, retained: false,
        timeout: 5))
    spy.events.wait { _ in !spy.messages.isEmpty }
    #expect(spy.messages.map(\.topic) == ["wormhole/v1/machines/beta/requests"], "\(spy.events.values)")
    spy.client.disconnect()
    #expect(!bridge.errorText.contains("denied"), "\(bridge.errorText)")
  }

  // MARK: Oversized payloads

  @Test func oversizedPayloadsAreCountedAndReportedAndNeverHandedUp() throws {
    let broker = try TestBroker()
    defer { broker.stop() }
    let reader = try Client(
      broker.address, identifier: "small", options: MQTTConnectionOptions(), maximumPayloadBytes: 64)
    #expect(reader.accepted())
    try reader.client.subscribe("big/#", quality: .atLeastOnce)
    let writer = try Client(broker.address, identifier: "writer", options: MQTTConnectionOptions())
    #expect(writer.accepted())
    // Retained, so that they reach the reader however late its subscription takes effect.
    for (index, size) in [65, 1000, 1 << 20].enumerated() {
      #expect(
        try writer.client.publish(
          [UInt8](repeating: 7, count: size), to: "big/\(index)", quality: .atLeastOnce, retained: true,
          timeout: 5))
    }
    #expect(
      try writer.client.publish(
        bytes("small"), to: "big/z", quality: .atLeastOnce, retained: true, timeout: 5))
    reader.events.wait { events in
      events.filter { if case .dropped = $0 { true } else { false } }.count >= 3
        && events.contains { if case .received(let message) = $0 { message.topic == "big/z" } else { false } }
    }
    #expect(reader.client.droppedCount == 3)
    #expect(reader.messages.map(\.topic) == ["big/z"])
    let reasons = reader.events.values.compactMap {
      if case .dropped(let reason) = $0 { reason } else { nil }
    }
    #expect(reasons.contains("a message of 1048576 bytes on big/2, above the limit of 64"), "\(reasons)")
    reader.client.disconnect()
    writer.client.disconnect()
  }
}

/// The connection options from an environment, without a broker.
@Suite struct MQTTConnectionOptionsTests {
  @Test func optionsComeFromTheEnvironmentAndAPasswordFileOthersCanReadIsRefused() throws {
    let home = TemporaryDirectory(prefix: "options")
    defer { home.remove() }
    func options(_ values: [String: String]) throws(MQTTError) -> MQTTConnectionOptions {
      try MQTTConnectionOptions { values[$0] }
    }
    #expect(try options([:]) == MQTTConnectionOptions())
    home.write("password", "s3cret\r\nignored\n")
    chmod(home.path("password"), 0o600)
    let fromFile = try options([
      "WORMHOLE_MQTT_USERNAME": "alpha", "WORMHOLE_MQTT_PASSWORD_FILE": home.path("password"),
      "WORMHOLE_MQTT_CAFILE": "/etc/ca.pem", "WORMHOLE_MQTT_PROTOCOL": "3.1.1",
    ])
    #expect(
      fromFile
        == MQTTConnectionOptions(
          username: "alpha", password: "s3cret", certificateAuthorityFile: "/etc/ca.pem",
          protocolVersion: .v3_1_1))
    #expect(!"\(fromFile)".contains("s3cret"))
    var dumped = ""
    dump(fromFile, to: &dumped)
    #expect(!dumped.contains("s3cret"))
    #expect(
      try options(["WORMHOLE_MQTT_USERNAME": "alpha", "WORMHOLE_MQTT_PASSWORD": "plain"]).password == "plain")
    for mode: mode_t in [0o644, 0o640, 0o604, 0o620] {
      chmod(home.path("password"), mode)
      #expect(throws: MQTTError.self) {
        try options(["WORMHOLE_MQTT_USERNAME": "alpha", "WORMHOLE_MQTT_PASSWORD_FILE": home.path("password")])
      }
    }
    chmod(home.path("password"), 0o600)
    let refused: [[String: String]] = [
      ["WORMHOLE_MQTT_PASSWORD": "p"],
      [
        "WORMHOLE_MQTT_USERNAME": "a", "WORMHOLE_MQTT_PASSWORD": "p",
        "WORMHOLE_MQTT_PASSWORD_FILE": home.path("password"),
      ],
      ["WORMHOLE_MQTT_USERNAME": "a", "WORMHOLE_MQTT_PASSWORD_FILE": home.path("missing")],
      ["WORMHOLE_MQTT_USERNAME": "a", "WORMHOLE_MQTT_PASSWORD_FILE": home.path("")],
      ["WORMHOLE_MQTT_PROTOCOL": "4"],
    ]
    for values in refused {
      #expect(throws: MQTTError.self, "\(values)") { try options(values) }
    }
  }

  @Test func anAddressWithCredentialsIsRefusedWithoutRepeatingThem() throws {
    for text in [
      "mqtt://alpha:alpha-secret@host", "mqtts://alpha-secret@host:8883", "mqtt://:alpha-secret@host",
    ] {
      do {
        _ = try BrokerAddress(parsing: text)
        Issue.record("\(text) was accepted")
      } catch {
        #expect(!error.description.contains("alpha-secret"), "\(error)")
        #expect(error.description.contains("WORMHOLE_MQTT_USERNAME"), "\(error)")
        #expect(error.description.contains("host"), "\(error)")
      }
    }
  }
}
