import DevicePairing
import Foundation
import Glibc
import MQTTClient
import TestSupport
import Testing

/// The README's ACL for the devices' and the peers' topics, against a mosquitto that lets in
/// only known users (`mosquitto_passwd`) and confines them with exactly these lines: a pair and
/// a peer session work under it, and a client outside its topics is refused at once (MQTT 5).
@Suite(
  .enabled(if: TestBroker.isAvailable, "needs mosquitto, mosquitto-clients and libmosquitto1"), .serialized)
struct BrokerACLTests {
  /// The users of ``aclBroker()`` and their passwords.
  static let users = [
    "demo-phone": "phone-secret", "demo-watch": "watch-secret", "desk": "desk-secret",
    "laptop": "laptop-secret", "outsider": "outsider-secret", "operator": "operator-secret",
  ]

  /// The README's lines for a pair's devices and a service's peers.
  static let acl = """
    # Each device of the pair demo (one user per device) writes its own topics and reads its
    # counterpart's five and its own push and claim; nothing of any other pair.
    user demo-phone
    topic write wormhole/v1/pairs/demo/phone/+
    topic read wormhole/v1/pairs/demo/phone/push
    topic read wormhole/v1/pairs/demo/phone/claim
    topic read wormhole/v1/pairs/demo/watch/presence
    topic read wormhole/v1/pairs/demo/watch/context
    topic read wormhole/v1/pairs/demo/watch/message
    topic read wormhole/v1/pairs/demo/watch/transfer
    topic read wormhole/v1/pairs/demo/watch/ack
    user demo-watch
    topic write wormhole/v1/pairs/demo/watch/+
    topic read wormhole/v1/pairs/demo/watch/push
    topic read wormhole/v1/pairs/demo/watch/claim
    topic read wormhole/v1/pairs/demo/phone/presence
    topic read wormhole/v1/pairs/demo/phone/context
    topic read wormhole/v1/pairs/demo/phone/message
    topic read wormhole/v1/pairs/demo/phone/transfer
    topic read wormhole/v1/pairs/demo/phone/ack
    # Who may push to the watch, and read the answers (every requester's) on its routed topic.
    user operator
    topic write wormhole/v1/pairs/demo/watch/push
    topic read wormhole/v1/pairs/demo/watch/routed

    # Every peer reads only its own inbox: its client identifier is wormhole/v1/peers/SERVICE/ID.
    pattern read %c/inbox/+
    # The machines trusted with the service chat: its presences (ids are per run, so every
    # one), its probe, and every inbox of it to write to.
    user desk
    topic readwrite wormhole/v1/peers/chat/+/presence
    topic readwrite wormhole/v1/peers/chat/probe
    topic write wormhole/v1/peers/chat/+/inbox/+
    user laptop
    topic readwrite wormhole/v1/peers/chat/+/presence
    topic readwrite wormhole/v1/peers/chat/probe
    topic write wormhole/v1/peers/chat/+/inbox/+
    # The pattern applies to every user: deny the peers' topics to the users that are no peers
    # (a user's lines come before the patterns).
    user outsider
    topic deny wormhole/v1/peers/#
    """

  /// A broker that lets in only ``users``, confined by ``acl``.
  static func aclBroker() throws -> TestBroker {
    try TestBroker(usesTLS: false) { directory in
      let file = directory.path("passwords")
      for (index, (user, password)) in users.sorted(by: { $0.key < $1.key }).enumerated() {
        try BrokerSecurityTests.passwd((index == 0 ? ["-c"] : []) + ["-b", file, user, password])
      }
      directory.write("acl", acl)
      return "allow_anonymous false\npassword_file \(file)\nacl_file \(directory.path("acl"))"
    }
  }

  /// The environment that makes a verb `user` (a password file only its owner may read).
  static func credentials(_ user: String, in directory: TemporaryDirectory) -> [String: String] {
    let file = directory.path("\(user).password")
    directory.write("\(user).password", (users[user] ?? "") + "\n")
    chmod(file, 0o600)
    return [
      MQTTConnectionOptions.usernameVariable: user, MQTTConnectionOptions.passwordFileVariable: file,
    ]
  }

  static let refusal = "Not authorized (MQTT reason code 135"

  @Test func aPairWorksUnderItsDevicesACLAndADeviceOutsideItsTopicsIsRefusedAtOnce() throws {
    let fixture = try ACLFixture(pairs: [["demo", "other"], ["demo"]])
    defer { fixture.remove() }
    let (broker, secrets, here, there) = (fixture.broker, fixture.secrets, fixture.homes[0], fixture.homes[1])
    func device(_ pair: String, _ role: String, _ home: BrokerHome, as user: String, _ extra: [String] = [])
      throws -> WormholeChild
    {
      try WormholeChild(
        ["device", "run", "--pair", pair, "--role", role, "--broker", broker.url, "--home", home.path]
          + extra,
        environment: Self.credentials(user, in: secrets))
    }
    let phone = try device("demo", "phone", here, as: "demo-phone")
    defer { phone.stop() }
    there.directory.write("app.routes", "push greeting print\n")
    there.directory.write("push.json", #"{"aps":{"notification_id":"greeting"}}"#)
    let watch = try device(
      "demo", "watch", there, as: "demo-watch", ["--echo", "--routes", there.directory.path("app.routes")])
    defer { watch.stop() }
    try #require(phone.waitForError(containing: "the watch is reachable", seconds: 20), "\(phone.errorText)")
    try #require(watch.waitForError(containing: "the phone is reachable", seconds: 20), "\(watch.errorText)")

    // A message and its reply, a context and a transfer (each acknowledged): every topic the
    // session uses, each way.
    func pass(_ transiting: String, _ arguments: [String]) throws -> (
      status: Int32, output: String, errors: String
    ) {
      try WormholeChild.run(
        ["pass", "--transiting", transiting, "--pair", "demo", "--role", "phone", "--home", here.path]
          + arguments)
    }
    let message = try pass("session-message", ["ping", "--string", "hello", "--reply-timeout", "20"])
    #expect(message.status == 0 && message.output == "\"hello\"\n", "\(message.errors) \(phone.errorText)")
    let context = try pass("session-context", ["mood", "--string", "calm"])
    #expect(context.status == 0, "\(context.errors)")
    #expect(try pass("session-file", ["doc", "--string", "file"]).status == 0)
    let received = [
      "session-message #1 ping: \"hello\"", "session-context #1 mood: \"calm\"",
      "session-file #1 doc: \"file\"",
    ]
    watch.output.wait(seconds: 20) { bytes in
      received.allSatisfy { String(decoding: bytes, as: UTF8.self).contains($0) }
    }
    for line in received { #expect(watch.outputText.contains(line), "\(watch.outputText)") }
    #expect(phone.waitForError(containing: "transfer 1 was stored by the watch"), "\(phone.errorText)")
    for child in [phone, watch] { #expect(!child.errorText.contains("Not authorized"), "\(child.errorText)") }

    // The operator pushes to the watch and reads its answer; the phone's user may not push to
    // the watch: the broker refuses the request, and the verb says so at once.
    let push = ["push", "--device", "demo:watch", "--broker", broker.url, "--home", here.path]
    let pushed = try WormholeChild.run(
      push + [there.directory.path("push.json")], environment: Self.credentials("operator", in: secrets))
    #expect(pushed.status == 0 && pushed.output.hasPrefix("catcher 0 "), "\(pushed.output) \(pushed.errors)")
    let started = ContinuousClock.now
    let refusedPush = try WormholeChild.run(
      push + [there.directory.path("push.json")], environment: Self.credentials("demo-phone", in: secrets))
    #expect(ContinuousClock.now - started < .seconds(10))
    #expect(refusedPush.status == 3, "\(refusedPush.errors)")
    #expect(
      refusedPush.errors.contains(
        "the broker did not accept the publication on wormhole/v1/pairs/demo/watch/push: " + Self.refusal),
      "\(refusedPush.errors)")

    // The phone's user running a device of another pair: its first publication (its presence)
    // is refused by the broker, and the device says so at once.
    let outside = try device("other", "phone", here, as: "demo-phone")
    defer { outside.stop() }
    #expect(
      outside.waitForError(
        containing: "the broker did not accept the publication on wormhole/v1/pairs/other/phone/presence: "
          + Self.refusal),
      "\(outside.errorText)")
    #expect(!outside.errorText.contains("is reachable"))
  }

  /// `peer run --broker` as `user`, once it says it runs.
  static func peer(
    _ name: String, _ home: BrokerHome, broker: TestBroker, as user: String, secrets: TemporaryDirectory,
    _ extra: [String]
  ) throws -> WormholeChild {
    let child = try WormholeChild(
      ["peer", "run", "--service", "chat", "--name", name, "--broker", broker.url, "--home", home.path]
        + extra,
      environment: Self.credentials(user, in: secrets))
    guard child.waitForError(containing: "is running", seconds: 20) else {
      child.stop()
      throw BrokerTestError("peer run \(name) did not start: \(child.errorText)")
    }
    return child
  }

  @Test func peersOfATrustedServiceMeetUnderTheACLAndReadOnlyTheirOwnInbox() throws {
    let fixture = try ACLFixture(pairs: [[], []])
    defer { fixture.remove() }
    let (broker, secrets, first, second) = (
      fixture.broker, fixture.secrets, fixture.homes[0], fixture.homes[1]
    )
    let watch = try Self.peer(
      "watch", second, broker: broker, as: "laptop", secrets: secrets, ["--advertise", "--accept", "always"])
    defer { watch.stop() }
    let desk = try Self.peer("desk", first, broker: broker, as: "desk", secrets: secrets, ["--browse"])
    defer { desk.stop() }
    desk.output.wait(seconds: 20) { String(decoding: $0, as: UTF8.self).contains("found watch#") }
    try #require(desk.outputText.contains("found watch#"), "\(desk.outputText) \(desk.errorText)")
    let invited = try WormholeChild.run([
      "peer", "invite", "--home", first.path, "--from", "desk", "--to", "watch",
    ])
    #expect(invited.status == 0 && invited.output.contains("connected"), "\(invited.errors)")
    let watchID = try #require(RunningPeer.all(home: second.path).first?.identity.id)
    let watchInbox = "wormhole/v1/peers/chat/\(PeerDirectory.hex(watchID))/inbox/+"

    // Another client of a trusted user may not read the watch's inbox: mosquitto grants the
    // subscription and hands it nothing.
    let spyID = "wormhole/v1/peers/chat/00000000000000aa"
    let spy = try BrokerSecurityTests.Client(
      broker.address, identifier: spyID,
      options: MQTTConnectionOptions(username: "desk", password: "desk-secret"))
    #expect(spy.accepted())
    try spy.client.subscribe(watchInbox, quality: .atLeastOnce)
    try spy.client.subscribe(spyID + "/inbox/+", quality: .atLeastOnce)
    let sent = try WormholeChild.run([
      "peer", "send", "--home", first.path, "--from", "desk", "--to", "watch", "--mode", "reliable",
      "{\"x\":1}",
    ])
    #expect(sent.status == 0, "\(sent.errors)")
    watch.output.wait { String(decoding: $0, as: UTF8.self).contains("reliable 7 bytes: {\"x\":1}") }
    #expect(watch.outputText.contains("reliable 7 bytes: {\"x\":1}"), "\(watch.outputText)")
    // The desk's frame reached the watch before the spy's marker reached the spy's own inbox:
    // the spy, handed only the marker, was handed nothing of the watch's.
    #expect(
      try spy.client.publish(
        bytes("marker"), to: spyID + "/inbox/00000000000000bb", quality: .atLeastOnce, retained: false,
        timeout: 5))
    spy.events.wait { _ in !spy.messages.isEmpty }
    #expect(spy.messages.map(\.topic) == [spyID + "/inbox/00000000000000bb"], "\(spy.events.values)")
    spy.client.disconnect()

    // A user not trusted with the service: a frame to its own inbox, which the pattern alone
    // would let it read, is not handed to it, and its presence is refused at once (MQTT 5).
    let outsiderID = "wormhole/v1/peers/chat/00000000000000cc"
    let outsider = try BrokerSecurityTests.Client(
      broker.address, identifier: outsiderID,
      options: MQTTConnectionOptions(username: "outsider", password: "outsider-secret"))
    #expect(outsider.accepted())
    try outsider.client.subscribe(outsiderID + "/inbox/+", quality: .atLeastOnce)
    let insider = try BrokerSecurityTests.Client(
      broker.address, identifier: "wormhole/v1/peers/chat/00000000000000dd",
      options: MQTTConnectionOptions(username: "laptop", password: "laptop-secret"))
    #expect(insider.accepted())
    #expect(
      try insider.client.publish(
        bytes("frame"), to: outsiderID + "/inbox/00000000000000dd", quality: .atLeastOnce, retained: false,
        timeout: 5))
    // The broker sent the frame on (had the ACL let it) before it acknowledged it; the outsider's
    // refusal, after it on the same connection, comes once the frame would have.
    do {
      _ = try outsider.client.publish(
        bytes("online"), to: outsiderID + "/presence", quality: .atLeastOnce, retained: true, timeout: 5)
      Issue.record("the outsider's presence was accepted")
    } catch {
      #expect("\(error)".contains(Self.refusal), "\(error)")
    }
    #expect(outsider.messages.isEmpty, "\(outsider.events.values)")
    outsider.client.disconnect()
    insider.client.disconnect()
  }

  /// A peer whose user may not use its service's topics says so at once (it ran on in silence):
  /// the broker's refusal of its presence is a `refused` line.
  @Test func aPeerRunWhoseUserTheACLRefusesSaysSo() throws {
    let fixture = try ACLFixture(pairs: [[]])
    defer { fixture.remove() }
    let (broker, secrets, home) = (fixture.broker, fixture.secrets, fixture.homes[0])
    let outsider = try Self.peer(
      "outsider", home, broker: broker, as: "outsider", secrets: secrets, ["--advertise"])
    defer { outsider.stop() }
    outsider.output.wait(seconds: 20) { String(decoding: $0, as: UTF8.self).contains(Self.refusal) }
    let text = outsider.outputText + outsider.errorText
    #expect(text.contains("refused: the link: the broker did not accept"), "\(text)")
    #expect(text.contains(Self.refusal), "\(text)")
  }
}
