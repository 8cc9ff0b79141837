import DevicePairing
import DeviceSession
import Foundation
import KeyedArchive
import WormholeVocabulary

/// `read` and `clear` for the session types on a pair's device (`--pair NAME --role ROLE`):
/// what each type leaves to read, as MMWormholeSession's transiting types do.
/// - `session-context`: the received context's value for the identifier, else the device's own
///   application context's (as MMWormhole reads `receivedApplicationContext`, then `applicationContext`);
///   clear removes the identifier from the device's application context (as the device, or
///   through the `device run` that holds its role), delivered as a context update when both run.
/// - `session-message`: never stored, so there is nothing to read (exit 1) or clear.
/// - `session-file`: received transfers are stored in the device's group mailboxes: the file type
///   on the device's containers (handled by the verbs' usual path).
enum SessionMailboxes {
  /// The archive `read` shows for a session type, or `nil` when there is none (said on standard
  /// error). Only for `session-context` and `session-message`.
  static func read(_ arguments: ParsedArguments, type: TransitingType, identifier: String)
    throws(CommandError) -> Data?
  {
    let address = try PairArguments.address(arguments, verb: "read --transiting \(type.rawValue)")
    let shown = DisplayText.field(identifier)
    guard type == .sessionContext else {
      diagnose("no message for \(shown): session messages are live only and never stored, as in MMWormhole")
      return nil
    }
    let snapshot = try load(arguments, address)
    guard
      let archive = snapshot.receivedContext.entries[identifier]
        ?? snapshot.applicationContext.entries[identifier]
    else {
      diagnose(
        "no message for \(shown) in the \(address.role)'s received or application context of "
          + PairDisplay.name(address.pair))
      return nil
    }
    return Data(archive)
  }

  /// The value of `identifier` in the received context of the device the arguments name, read
  /// from its file as it is now (`listen` on a device, for a context it received); `nil` when
  /// the context no longer holds it.
  static func receivedValue(_ arguments: ParsedArguments, identifier: String) throws(CommandError) -> Data? {
    let address = try PairArguments.address(arguments, verb: "listen")
    let path = PairArguments.store(arguments).directory(for: address).receivedContextPath
    do {
      return try FileSessionStorage.context(at: path).0.entries[identifier].map { Data($0) }
    } catch {
      throw CommandError(error)
    }
  }

  /// `clear` for `session-context` and `session-message`.
  static func clear(_ arguments: ParsedArguments, type: TransitingType, identifiers: [String], all: Bool)
    throws(CommandError)
  {
    let address = try PairArguments.address(arguments, verb: "clear --transiting \(type.rawValue)")
    guard type == .sessionContext else { return }  // messages are never stored: nothing to clear
    let client = PairedDeviceClient(
      store: PairArguments.store(arguments), address: address,
      applicationGroup: PairArguments.group(arguments))
    let outcome: PairedDeviceClient.ContextOutcome
    do throws(PairedDeviceError) {
      outcome = all ? try client.clearContext() : try client.removeFromContext(identifiers: identifiers)
    } catch {
      throw SessionPass.failure(error, otherwise: "clear it once it stops")
    }
    let peer = SessionPass.peer(address, route: outcome.route)
    switch outcome.update {
    case .unchanged: break  // none of them was in the context
    case .sent(let version) where outcome.isStored:
      diagnose("context version \(version) of the \(address.role) was stored by \(peer)")
    case .sent(let version):
      diagnose(
        "context version \(version) of the \(address.role) was sent to \(peer), not acknowledged yet: "
          + "it is sent again when both run")
    case .queued(let version):
      diagnose("context version \(version) of the \(address.role) is delivered when both devices run")
    }
  }

  private static func storage(_ arguments: ParsedArguments, store: PairStore, address: DeviceAddress)
    throws(CommandError) -> FileSessionStorage
  {
    let directory = store.directory(for: address)
    do {
      let mailboxes = try MailboxDelivery(device: directory, applicationGroup: PairArguments.group(arguments))
      return try FileSessionStorage(directory: directory, mailboxes: mailboxes)
    } catch {
      throw CommandError(error)
    }
  }

  private static func load(_ arguments: ParsedArguments, _ address: DeviceAddress) throws(CommandError)
    -> SessionSnapshot
  {
    let store = PairArguments.store(arguments)
    _ = try PairArguments.attempt { () throws(PairStoreError) in try store.pair(named: address.pair) }
    let storage = try storage(arguments, store: store, address: address)
    do { return try storage.load() } catch { throw CommandError(error) }
  }
}
