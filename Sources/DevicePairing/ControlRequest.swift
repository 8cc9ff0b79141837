import DeviceSession

/// One request on a device's control socket, as ``PairedDeviceClient`` sends it and
/// ``DeviceControlServer`` answers it.
///
/// On the wire it is a link frame (``FrameCodec``, bounded and checked) from the device's own
/// role: `.message` (`replyRequested`, and `time` the reply timeout in nanoseconds, when it
/// waits for a reply), `.context` (`deliversIdentical`), `.transfer`, `.transferAcknowledgement`
/// (`transferID` the transfer to cancel), and `.contextAcknowledgement` for a removal from the
/// context (its payload the identifiers as context entries with empty archives; `sequence` 1 to
/// remove them all). `.push` and `.deepLink` frames are requests too, but for the device's
/// routes (``DeviceRoutes``), answered by a ``RoutedDelivery``.
enum ControlRequest: Sendable, Equatable {
  case message(identifier: String, archive: [UInt8], replyTimeout: Double?)
  case context(identifier: String, archive: [UInt8], deliveringIdentical: Bool)
  /// `nil`: every identifier.
  case removal(identifiers: [String]?)
  case transfer(identifier: String, archive: [UInt8])
  case cancel(id: UInt64)

  func frame(sender: DeviceRole) -> DeviceFrame {
    switch self {
    case .message(let identifier, let archive, let timeout):
      var frame = DeviceFrame(
        kind: .message, identifier: identifier, sender: sender, time: 0, payload: archive)
      if let timeout {
        frame.flags = .replyRequested
        frame.time = Int64(max(0, min(timeout, 1e9)) * 1e9)
      }
      return frame
    case .context(let identifier, let archive, let identical):
      return DeviceFrame(
        kind: .context, identifier: identifier, sender: sender, time: 0,
        flags: identical ? .deliversIdentical : [], payload: archive)
    case .removal(let identifiers):
      let entries = Dictionary(
        (identifiers ?? []).map { ($0, [UInt8]()) }, uniquingKeysWith: { first, _ in first })
      return DeviceFrame(
        kind: .contextAcknowledgement, sequence: identifiers == nil ? 1 : 0, sender: sender, time: 0,
        payload: SessionContext(entries: entries).encodedEntries())
    case .transfer(let identifier, let archive):
      return DeviceFrame(kind: .transfer, identifier: identifier, sender: sender, time: 0, payload: archive)
    case .cancel(let id):
      return DeviceFrame(kind: .transferAcknowledgement, transferID: id, sender: sender, time: 0)
    }
  }

  /// The request a frame carries; `nil` for a frame that is none (a reply, a removal whose
  /// identifiers cannot be read).
  init?(_ frame: DeviceFrame) {
    switch frame.kind {
    case .message:
      self = .message(
        identifier: frame.identifier, archive: frame.payload,
        replyTimeout: frame.flags.contains(.replyRequested) ? Double(frame.time) / 1e9 : nil)
    case .context:
      self = .context(
        identifier: frame.identifier, archive: frame.payload,
        deliveringIdentical: frame.flags.contains(.deliversIdentical))
    case .contextAcknowledgement:
      if frame.sequence == 1 {
        self = .removal(identifiers: nil)
      } else {
        guard let entries = try? SessionContext.decodeEntries(frame.payload) else { return nil }
        self = .removal(identifiers: SessionContext(entries: entries).identifiers)
      }
    case .transfer:
      self = .transfer(identifier: frame.identifier, archive: frame.payload)
    case .transferAcknowledgement:
      self = .cancel(id: frame.transferID)
    case .reply, .push, .deepLink:
      return nil  // a push or a deep link is routed (DeviceRoutes), not a session operation
    }
  }
}
