import DevicePairing
import Glibc
import KeyedArchive
import PeerSession
import WormholeVocabulary

/// The `peer` actions that ask a running peer (through its control socket) to act.
enum PeerRequests {
  static func invite(_ arguments: ParsedArguments, _ rest: [String]) throws(CommandError) -> ExitCode {
    guard rest.isEmpty else { throw .usage("peer invite takes no arguments, only options (see --help)") }
    let to = try PeerArguments.to(arguments, action: "invite")
    let timeout = try arguments.seconds(.timeout) ?? 30
    let context = try arguments.value(.context).map { text throws(CommandError) in
      try SessionLines.archive(try PassVerb.parseJSON(text, what: "--context"))
    }
    let from = try PeerArguments.from(arguments, action: "invite")
    return try ask(
      from,
      PeerControlMessage([Array("invite".utf8), Array(to.utf8), context ?? [], Array(String(timeout).utf8)]),
      seconds: timeout + 15)
  }

  static func answer(_ arguments: ParsedArguments, _ rest: [String]) throws(CommandError) -> ExitCode {
    guard rest.count == 1, rest[0] == "accept" || rest[0] == "decline" else {
      throw .usage("peer answer takes accept or decline")
    }
    let to = try PeerArguments.to(arguments, action: "answer")
    let from = try PeerArguments.from(arguments, action: "answer")
    return try ask(from, PeerControlMessage(text: ["answer", to, rest[0]]), seconds: 15)
  }

  static func send(_ arguments: ParsedArguments, _ rest: [String]) throws(CommandError) -> ExitCode {
    let text = arguments.value(.string)
    if text != nil, !rest.isEmpty {
      throw .usage("peer send takes DATA or --string TEXT, not both")
    }
    guard text != nil || rest.count == 1 else {
      throw .usage("peer send takes one DATA (JSON, or @FILE for a file's bytes), or --string TEXT for text")
    }
    let to = try PeerArguments.to(arguments, action: "send", list: true)
    let modeText = arguments.value(.mode) ?? ""
    guard let mode = PeerSendMode(rawValue: modeText) else {
      throw .usage("peer send needs --mode reliable or --mode unreliable")
    }
    let data: [UInt8]
    if let text {
      data = Array(text.utf8)
    } else if rest[0].hasPrefix("@") {
      data = try read(String(rest[0].dropFirst()), what: "data file")
    } else {
      _ = try PassVerb.parseJSON(rest[0], what: "DATA", hint: sendHint)
      data = Array(rest[0].utf8)
    }
    let from = try PeerArguments.from(arguments, action: "send")
    return try ask(
      from, PeerControlMessage([Array("send".utf8), Array(to.utf8), Array(mode.rawValue.utf8), data]),
      seconds: 30)
  }

  /// What a DATA that is not JSON is told (``PassVerb/stringHint`` is `pass`'s).
  static let sendHint = "send text with --string TEXT, or a file's bytes with @FILE"

  static func sendResource(_ arguments: ParsedArguments, _ rest: [String]) throws(CommandError) -> ExitCode {
    guard rest.count == 1 else { throw .usage("peer send-resource takes one FILE") }
    let to = try PeerArguments.to(arguments, action: "send-resource")
    guard let resolved = realpath(rest[0], nil) else {
      throw .failure("cannot open \(DisplayText.field(rest[0])): \(String(cString: strerror(errno)))")
    }
    let path = String(cString: resolved)
    free(resolved)
    let name = arguments.value(.name) ?? String(path.split(separator: "/").last ?? "resource")
    guard !name.isEmpty, name.utf8.count <= PeerFrameCodec.maximumTextBytes else {
      throw .usage("--name takes 1 to \(PeerFrameCodec.maximumTextBytes) bytes")
    }
    let from = try PeerArguments.from(arguments, action: "send-resource")
    return try ask(from, PeerControlMessage(text: ["send-resource", to, path, name]), seconds: 86_400)
  }

  static func disconnect(_ arguments: ParsedArguments, _ rest: [String]) throws(CommandError) -> ExitCode {
    guard rest.isEmpty else { throw .usage("peer disconnect takes no arguments, only options (see --help)") }
    let peer = try PeerArguments.from(arguments, action: "disconnect", option: .name)
    return try ask(peer, PeerControlMessage(text: ["disconnect"]), seconds: 15)
  }

  /// Whether `text` is written as a resource's id is (`PeerResourceID.description`): the
  /// sender's id in lowercase hex, `/`, the resource's number in decimal.
  static func isResourceName(_ text: String) -> Bool {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, (1...16).contains(parts[0].count), !parts[1].isEmpty, parts[1].count <= 20 else {
      return false
    }
    return parts[0].utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
      && parts[1].utf8.allSatisfy { (48...57).contains($0) }
  }

  static func cancel(_ arguments: ParsedArguments, _ rest: [String]) throws(CommandError) -> ExitCode {
    guard rest.count == 1, !rest[0].isEmpty else {
      throw .usage("peer cancel takes one RESOURCE (SENDERHEX/NUMBER, as peer run shows it)")
    }
    guard isResourceName(rest[0]) else {
      throw .usage(
        "\(DisplayText.field(rest[0])) names no resource: RESOURCE is SENDERHEX/NUMBER (1 to 16 "
          + "lowercase hex digits, a slash, a decimal number), as peer run shows it")
    }
    let peer = try PeerArguments.from(arguments, action: "cancel", option: .name)
    return try ask(peer, PeerControlMessage(text: ["cancel", rest[0]]), seconds: 15)
  }

  static func list(_ arguments: ParsedArguments, _ rest: [String]) throws(CommandError) -> ExitCode {
    guard rest.isEmpty else { throw .usage("peer list takes no arguments") }
    let service = try arguments.value(.service).map { text throws(CommandError) in
      try PeerArguments.service(text)
    }
    let json = arguments.flag(.json)
    for peer in RunningPeer.all(home: PeerArguments.home(arguments), service: service) {
      let status = PeerControlChannel.exchange(
        PeerControlMessage(text: ["status"]), path: peer.controlSocketPath, seconds: 2)
      let connected =
        status.map { answer in
          answer.text(1).split(separator: "\n").filter { $0.hasPrefix("connected ") }.map {
            String($0.dropFirst("connected ".count))
          }
        } ?? []
      if json {
        emit(
          "{\"service\":\(DisplayText.jsonString(peer.directory.service.text)),"
            + "\"name\":\(DisplayText.jsonString(peer.identity.name.text)),"
            + "\"id\":\"\(PeerDirectory.hex(peer.identity.id))\",\"pid\":\(peer.pid),"
            + "\"advertising\":\(peer.isAdvertising),"
            + "\"connected\":[\(connected.map { DisplayText.jsonString($0) }.joined(separator: ","))]}")
      } else {
        emit(
          "\(peer.directory.service.text) \(peer.identity) pid \(peer.pid)"
            + (peer.isAdvertising ? " advertising" : "")
            + (connected.isEmpty ? "" : " connected: " + connected.joined(separator: ", ")))
      }
    }
    return .success
  }

  /// Sends `request` to `peer`'s control socket; prints the answer, or ends with its error.
  private static func ask(_ peer: RunningPeer, _ request: PeerControlMessage, seconds: Double)
    throws(CommandError) -> ExitCode
  {
    guard let answer = PeerControlChannel.exchange(request, path: peer.controlSocketPath, seconds: seconds)
    else {
      throw .failure("peer \(peer.identity) gave no answer on its control socket (did it stop?)")
    }
    if answer.text(0) == "ok" {
      emit(DisplayText.escaped(answer.text(1)))
      return .success
    }
    throw CommandError(message: answer.text(2), code: answer.text(1) == "2" ? .usage : .failure)
  }

  /// The bytes of a regular file, at most 16 MiB.
  private static func read(_ path: String, what: String) throws(CommandError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw .failure(
        "cannot open the \(what) \(DisplayText.field(path)): \(String(cString: strerror(errno)))")
    }
    defer { _ = close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= 16 << 20
    else {
      throw .failure("the \(what) \(DisplayText.field(path)) is not a regular file of at most 16 MiB")
    }
    var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
    var got = 0
    while got < bytes.count {
      let count = bytes.withUnsafeMutableBytes {
        Glibc.read(descriptor, $0.baseAddress.map { $0 + got }, $0.count - got)
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      got += count
    }
    return Array(bytes[0..<got])
  }
}
