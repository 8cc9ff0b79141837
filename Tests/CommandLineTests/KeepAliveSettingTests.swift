import TestSupport
import Testing

/// A keep-alive set in the environment that cannot be used is refused, naming it, by every verb
/// that takes `--broker` for a device (`device run`, `push`, `open-url`), before anything starts:
/// never a broker session run on another keep-alive than the one asked for.
@Suite struct KeepAliveSettingTests {
  @Test(arguments: ["abc", "4", "3601", ""])
  func anUnusableKeepAliveIsAUsageErrorThatNamesIt(_ value: String) throws {
    let environment = ["WORMHOLE_MQTT_KEEPALIVE": value]
    let directory = TemporaryDirectory(prefix: "wormhole-keepalive")
    defer { directory.remove() }
    let home = directory.path
    #expect(try run(["pair", "create", "p", "--home", home]).status == 0)
    for arguments in [
      ["device", "run", "--pair", "p", "--role", "phone", "--home", home, "--broker", "mqtt://127.0.0.1:1"],
      ["push", "--device", "p:phone", "--home", home, "--broker", "mqtt://127.0.0.1:1", "-"],
      ["open-url", "--device", "p:phone", "--home", home, "--broker", "mqtt://127.0.0.1:1", "myapp://x"],
    ] {
      let result = try run(arguments, input: "{\"aps\":{}}", environment: environment)
      #expect(result.status == 2, "\(arguments): \(result.errors)")
      #expect(result.errors.contains("WORMHOLE_MQTT_KEEPALIVE"), "\(arguments): \(result.errors)")
      #expect(result.errors.contains("5 to 3600"), "\(arguments): \(result.errors)")
    }
  }
}
