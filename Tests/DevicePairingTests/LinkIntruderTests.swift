import DevicePairing
import DeviceSession
import Foundation
import Testing

/// The link takes only the counterpart's running device: a connection from any other process to
/// a device's `link.sock` used to replace the real link, and when it closed both devices stayed
/// cut off (every message 7007) while both ran.
@Suite struct LinkIntruderTests {
  @Test func aStrayConnectionToALinkSocketLeavesThePairConnected() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    let watch = try DeviceUnderTest(home.store, pair.watch)
    defer { phone.stop(); watch.stop() }
    #expect(phone.waitReachable() && watch.waitReachable())
    // Another process connects to each device's socket, holds the connection, then closes it.
    let intruder = Process()
    intruder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    let sockets = [watch.device.directory.socketPath, phone.device.directory.socketPath]
    intruder.arguments =
      [
        "python3", "-c",
        """
        import socket, sys, time
        held = []
        for path in sys.argv[1:]:
            s = socket.socket(socket.AF_UNIX); s.connect(path); held.append(s)
            try: s.send(b"garbage")
            except OSError: pass  # refused at once: the device closed it
        time.sleep(0.3)
        for s in held: s.close()
        """,
      ] + sockets
    try intruder.run()
    intruder.waitUntilExit()
    #expect(intruder.terminationStatus == 0)
    // Nothing went away, and the pair still talks both ways.
    #expect(!phone.deliveries.values.contains(.reachabilityChanged(false)))
    #expect(!watch.deliveries.values.contains(.reachabilityChanged(false)))
    try phone.session.sendMessage(bytes("after"), identifier: "m")
    try watch.session.sendMessage(bytes("back"), identifier: "m")
    watch.deliveries.wait { _ in !watch.messages.isEmpty }
    phone.deliveries.wait { _ in !phone.messages.isEmpty }
    #expect(watch.messages.map(\.payload) == [bytes("after")])
    #expect(phone.messages.map(\.payload) == [bytes("back")])
    #expect(!watch.deliveries.values.contains { if case .failure = $0 { true } else { false } })
  }
}
