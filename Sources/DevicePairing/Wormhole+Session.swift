import DeviceSession
import Wormhole
import WormholeVocabulary

extension Wormhole {
  /// A wormhole on the simulated device of `session`: with a session type, its messages travel
  /// to the device's counterpart, and its listeners hear what the counterpart sends (by any
  /// session type) once ``ListeningSession/activateSessionListening()`` is called; with a file
  /// type, it is a plain wormhole on the device's own mailboxes. The device's session is
  /// activated here, so that it can send and is reachable.
  public convenience init(
    session: ListeningSession, transitingType: TransitingType, options: Options = Options()
  ) throws(WormholeError) {
    let transiting: any WormholeTransiting
    switch transitingType {
    case .file:
      transiting = FileTransiting(directory: session.mailboxes.directory, isDurable: options.isDurable)
    case .coordinatedFile:
      transiting = CoordinatedFileTransiting(
        directory: session.mailboxes.directory, isDurable: options.isDurable)
    case .sessionMessage: transiting = SessionMessageTransiting(session: session)
    case .sessionContext: transiting = SessionContextTransiting(session: session)
    case .sessionFile: transiting = SessionFileTransiting(session: session)
    }
    if transitingType.needsPair { try session.activateDevice() }
    try self.init(transiting: transiting, options: options)
  }

  /// A wormhole on the `role` device of the pair `pair` under `home`, for the mailboxes of
  /// `applicationGroup`: this process runs the device (see ``ListeningSession/shared(store:address:applicationGroup:optionalDirectory:)``),
  /// as a watch or phone app would. Listeners hear once the device's listening session is
  /// activated (``ListeningSession/activateSessionListening()``).
  ///
  /// - Parameters:
  ///   - home: The wormhole home the pairs are under; `nil` uses ``WormholeHome/defaultPath(environment:)``.
  public convenience init(
    pair: PairName, role: DeviceRole, transitingType: TransitingType, applicationGroup: String,
    optionalDirectory: String? = nil, home: String? = nil, options: Options = Options()
  ) throws(WormholeError) {
    let session = try ListeningSession.shared(
      store: PairStore(home: home ?? WormholeHome.defaultPath()),
      address: DeviceAddress(pair: pair, role: role),
      applicationGroup: applicationGroup, optionalDirectory: optionalDirectory)
    try self.init(session: session, transitingType: transitingType, options: options)
  }
}
