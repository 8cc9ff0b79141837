/// What a session keeps across restarts, as loaded when it starts.
public struct SessionSnapshot: Sendable, Equatable {
  /// This device's application context (the latest it set).
  public var applicationContext: SessionContext
  /// The newest version of it the counterpart has stored; below ``applicationContext``'s
  /// version, the context is still to be delivered.
  public var acknowledgedContextVersion: UInt64
  /// The counterpart's context as last received.
  public var receivedContext: SessionContext
  /// Outbound transfers not yet acknowledged, oldest first.
  public var outboundTransfers: [FileTransfer]
  /// The newest transfer id from the counterpart already stored here.
  public var lastReceivedTransfer: UInt64

  public init(
    applicationContext: SessionContext = SessionContext(), acknowledgedContextVersion: UInt64 = 0,
    receivedContext: SessionContext = SessionContext(), outboundTransfers: [FileTransfer] = [],
    lastReceivedTransfer: UInt64 = 0
  ) {
    self.applicationContext = applicationContext
    self.acknowledgedContextVersion = acknowledgedContextVersion
    self.receivedContext = receivedContext
    self.outboundTransfers = outboundTransfers
    self.lastReceivedTransfer = lastReceivedTransfer
  }
}

/// A device's persistent state: its contexts, its outbound queue, its mailboxes.
///
/// Each call completes its write (atomically: a crash leaves the old state or the new) before
/// returning, so that the session can acknowledge what it stored.
public protocol SessionStorage: Sendable {
  /// The state left by earlier runs.
  func load() throws(SessionError) -> SessionSnapshot
  /// Keeps this device's application context and the version the counterpart has stored.
  func saveApplicationContext(_ context: SessionContext, acknowledgedVersion: UInt64) throws(SessionError)
  /// Keeps the context received from the counterpart.
  func saveReceivedContext(_ context: SessionContext) throws(SessionError)
  /// Validates the identifier, gives the transfer the next id and writes it to the outbound queue.
  func enqueueTransfer(identifier: String, payload: [UInt8], time: Int64) throws(SessionError) -> FileTransfer
  /// Removes a transfer from the outbound queue (acknowledged or cancelled); absent is fine.
  func removeTransfer(_ id: UInt64) throws(SessionError)
  /// Stores a received transfer in its mailbox, then records `transfer.id` as the newest
  /// received, in that order: a crash in between stores the same bytes again on redelivery.
  /// Throws ``SessionError/invalidIdentifier(_:reason:)`` when the identifier can never name a
  /// mailbox (the session then calls ``skipReceivedTransfer(_:)``), any other error when the
  /// transfer cannot be stored now (it is not acknowledged, and comes again).
  func storeReceivedTransfer(_ transfer: FileTransfer) throws(SessionError)
  /// Records `id` as the newest received without storing anything: for a transfer that can
  /// never be stored, so that the sender stops sending it.
  func skipReceivedTransfer(_ id: UInt64) throws(SessionError)
  /// Removes several transfers from the outbound queue (see the default in the extension).
  func removeTransfers(_ ids: [UInt64]) throws(SessionError)
  /// Stores a batch of received transfers (see the default in the extension).
  func storeReceivedTransfers(_ transfers: [FileTransfer]) throws(SessionError)
}

extension SessionStorage {
  /// Removes several transfers from the outbound queue; by default one ``removeTransfer(_:)``
  /// each. A storage that can do it in one write should.
  public func removeTransfers(_ ids: [UInt64]) throws(SessionError) {
    for id in ids { try removeTransfer(id) }
  }

  /// Stores received transfers, in order, then records the last one's id as the newest received:
  /// a crash before that stores them again on redelivery. By default one
  /// ``storeReceivedTransfer(_:)`` each; a storage may write each mailbox once per batch (the
  /// last archive for it) as long as every transfer is journaled. Throws
  /// ``SessionError/invalidIdentifier(_:reason:)`` when a transfer can never be stored (the
  /// session then stores the batch one at a time).
  public func storeReceivedTransfers(_ transfers: [FileTransfer]) throws(SessionError) {
    for transfer in transfers { try storeReceivedTransfer(transfer) }
  }
}
