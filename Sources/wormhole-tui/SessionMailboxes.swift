import DevicePairing
import DeviceSession
import Foundation
import KeyedArchive
import WormholeVocabulary

/// `read` and `clear` for the session types on a pair's device (`--pair NAME --role ROLE`):
/// what each type leaves to read, as MMWormholeSession's transiting types do.
/// - `session-context`: the received context's value for the identifier, else the device's own
///   application context's (as MMWormhole reads `receivedApplicationContext`, then `applicationContext`);
///   clear removes the identifier from the device's application context, delivered when both run.
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

  /// `clear` for `session-context` and `session-message`.
  static func clear(_ arguments: ParsedArguments, type: TransitingType, identifiers: [String], all: Bool)
    throws(CommandError)
  {
    let address = try PairArguments.address(arguments, verb: "clear --transiting \(type.rawValue)")
    guard type == .sessionContext else { return }  // messages are never stored: nothing to clear
    let store = PairArguments.store(arguments)
    let directory = store.directory(for: address)
    let lock: RunLock
    do {
      _ = try store.pair(named: address.pair)
      lock = try RunLock(path: directory.runLockPath)
    } catch let error as PairStoreError {
      throw CommandError(error)
    } catch let error as RunLock.Failure {
      switch error {
      case .held(let pid):
        throw .failure(
          "the \(address.role) of \(PairDisplay.name(address.pair)) is running (pid \(pid.map(String.init) ?? "?")): "
            + "its context is cleared from disk only while it is down (a control channel to a running device is "
            + "a later slice); stop it first")
      case .unavailable(let reason): throw .failure(reason)
      }
    } catch {
      throw .failure("\(error)")
    }
    defer { lock.release() }
    let storage = try storage(arguments, store: store, address: address)
    let snapshot: SessionSnapshot
    do { snapshot = try storage.load() } catch { throw CommandError(error) }
    var entries = snapshot.applicationContext.entries
    if all { entries = [:] } else { for identifier in identifiers { entries[identifier] = nil } }
    guard entries != snapshot.applicationContext.entries else { return }
    let context = SessionContext(entries: entries, version: snapshot.applicationContext.version + 1)
    do {
      try storage.saveApplicationContext(context, acknowledgedVersion: snapshot.acknowledgedContextVersion)
    } catch {
      throw CommandError(error)
    }
    diagnose("context version \(context.version) of the \(address.role) is delivered when both devices run")
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
