/// A command-line option: its name and, for one that takes a value, the value's placeholder in
/// help. The parser and every call site share these constants, so a misspelt option does not
/// compile, and ``ParsedArguments`` traps (in debug builds, which the tests run) on a lookup of
/// an option the verb did not declare.
struct Option: Hashable, Sendable {
  /// The name after `--`.
  let name: String
  /// The value's placeholder in help (`DIR`, `N`), or `nil` for a flag.
  let placeholder: String?

  private init(_ name: String, _ placeholder: String? = nil) {
    self.name = name
    self.placeholder = placeholder
  }

  /// Whether the value names a directory, which an empty value cannot (`--home ""` would
  /// otherwise be the root directory).
  var namesDirectory: Bool { placeholder == "DIR" }

  // Choosing the wormhole directory (every verb that uses a location).
  static let home = Option("home", "DIR")
  static let group = Option("group", "G")
  static let directory = Option("directory", "D")
  static let container = Option("container", "DIR")
  static let deviceSet = Option("device-set", "DIR")
  static let readWrite = Option("read-write")
  static let help = Option("help")

  // Passing and clearing.
  static let sender = Option("sender", "LABEL")
  static let string = Option("string", "TEXT")
  static let archive = Option("archive", "FILE")
  static let lines = Option("lines")
  static let transiting = Option("transiting", "TYPE")
  static let durable = Option("durable")
  static let all = Option("all")

  // Reading and following.
  static let json = Option("json")
  static let raw = Option("raw")
  static let count = Option("count", "N")
  static let timeout = Option("timeout", "SECONDS")
  static let follow = Option("follow")
  static let traffic = Option("traffic", "N")
  static let strict = Option("strict")

  // The dashboard, its snapshot and the demo.
  static let theme = Option("theme", "NAME|PATH")
  static let readOnly = Option("read-only")
  static let mouse = Option("mouse")
  static let history = Option("history", "N")
  static let size = Option("size", "COLSxROWS")
  static let keys = Option("keys", "KEYS")
  static let ansi = Option("ansi")
  static let noUI = Option("no-ui")
  static let seconds = Option("seconds", "N")
  static let keep = Option("keep")
  static let role = Option("role", "ROLE")

  // Paired devices and the session transiting types.
  static let pair = Option("pair", "NAME")
  static let force = Option("force")
  static let reply = Option("reply", "JSON")
  static let echo = Option("echo")
  static let replyTimeout = Option("reply-timeout", "SECONDS")
  static let deliverIdentical = Option("deliver-identical")
  static let reachable = Option("reachable")

  // Routes: pushes and deep links.
  static let routes = Option("routes", "FILE")
  static let pushKey = Option("push-key", "KEY")
  static let device = Option("device", "SELECTOR")

  // Across machines.
  static let broker = Option("broker", "URL")
  static let allowRemoteWrites = Option("allow-remote-writes")
  static let machine = Option("machine", "M")
  static let remoteTimeout = Option("remote-timeout", "SECONDS")
  /// What every `--broker` help line says of the address and of the environment it connects with.
  static let brokerAddressHelp =
    "mqtt://HOST:PORT, or mqtts://HOST:PORT for TLS; credentials and the CA from $WORMHOLE_MQTT_USERNAME, "
    + "$WORMHOLE_MQTT_PASSWORD_FILE, $WORMHOLE_MQTT_CAFILE"
  // Peers: Multipeer-style sessions.
  static let service = Option("service", "TYPE")
  static let name = Option("name", "NAME")
  static let advertise = Option("advertise")
  static let browse = Option("browse")
  static let info = Option("info", "KEY=VALUE")
  static let accept = Option("accept", "always|never|ask")
  static let from = Option("from", "NAME")
  static let to = Option("to", "NAME")
  static let context = Option("context", "JSON")
  static let mode = Option("mode", "reliable|unreliable")
}
