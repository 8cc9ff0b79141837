import Foundation
import KeyedArchive
import MailboxModel
import Wormhole
import WormholeVocabulary

/// Why an operation on mailboxes failed.
public enum OperationError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The library refused or failed (invalid identifier, missing directory, full disk...).
  case wormhole(WormholeError)
  /// The traffic entry's message is not in the model: overwritten before it was read, or
  /// evicted from history.
  case messageNotKept(entry: UInt64)
  /// The version's bytes were not kept (the file was larger than the watcher stores).
  case bytesNotKept(size: Int)
  /// The library takes names as text, and this identifier or directory is not valid UTF-8.
  case nameNotText(FileName, operation: String)

  public var description: String {
    switch self {
    case .wormhole(let error): return error.description
    case .messageNotKept(let entry):
      return
        "the message of traffic entry \(entry) is no longer in the model (overwritten before it was read, or evicted from history); replay a history version instead"
    case .bytesNotKept(let size):
      return
        "the version's \(size) bytes were not kept (larger than the watcher stores); raise maximumStoredBytes"
    case .nameNotText(let name, let operation):
      return
        "cannot \(operation) a name that is not UTF-8 yet: \(name.displayField) (rename it, or use a tool that takes bytes)"
    }
  }
}

/// The operations a dashboard or a script performs on mailboxes: pass, clear one, clear all,
/// replay. Each goes through the ``Wormhole`` library, so it is journaled like any other pass
/// (replays with `replay_of`), and the model learns of it as it learns of everyone else's.
public struct MailboxOperations: Sendable {
  /// The sender label written to the journal.
  public var sender: String
  private let wormholes = WormholeCache()

  public init(sender: String = "wormhole-tui") { self.sender = sender }

  /// Passes `message` (or only the notification, for `nil`) to `identifier` in `directory`.
  @discardableResult
  public func pass(
    _ message: ArchivedValue?, identifier: FileName, directory: FileName,
    transitingType: TransitingType = .file
  ) throws(OperationError) -> TrafficRecord {
    let identifier = try text(identifier, "pass to")
    let wormhole = try wormhole(directory, transitingType, "pass to")
    do {
      return try wormhole.passMessage(message, identifier: identifier)
    } catch {
      throw .wormhole(error)
    }
  }

  /// Removes the mailbox of `identifier` in `directory`.
  public func clear(identifier: FileName, directory: FileName, transitingType: TransitingType = .file)
    throws(OperationError)
  {
    let wormhole = try wormhole(directory, transitingType, "clear")
    do {
      // By its bytes: a mailbox whose name is not UTF-8 can be cleared too.
      try wormhole.clearMessageContents(forFileName: MessageIdentifier.fileName(for: identifier))
    } catch {
      throw .wormhole(error)
    }
  }

  /// Removes every mailbox of `directory`.
  public func clearAll(directory: FileName, transitingType: TransitingType = .file) throws(OperationError) {
    let wormhole = try wormhole(directory, transitingType, "clear all in")
    do {
      try wormhole.clearAllMessageContents()
    } catch {
      throw .wormhole(error)
    }
  }

  /// Passes an earlier version's archive again, to `identifier` in `directory` (the same
  /// mailbox or another). The journal record names the post that wrote the version in
  /// `replay_of`, or 0 when no journal record described it (an unjournaled writer).
  @discardableResult
  public func replay(
    _ version: MailboxVersion, identifier: FileName, directory: FileName,
    transitingType: TransitingType = .file
  ) throws(OperationError) -> TrafficRecord {
    guard let bytes = version.bytes else { throw .bytesNotKept(size: version.size) }
    return try passArchive(
      bytes, identifier: identifier, directory: directory, transitingType: transitingType,
      replayOf: version.sequence ?? 0)
  }

  /// Performs a traffic entry again: a pass is replayed with the message it wrote (to its own
  /// identifier and directory unless others are given), a notification posted again, a clear
  /// or clear-all done again.
  @discardableResult
  public func replay(
    _ entry: TrafficEntry, in state: ModelState, identifier: FileName? = nil, directory: FileName? = nil,
    transitingType: TransitingType? = nil
  ) throws(OperationError) -> TrafficRecord? {
    let target = identifier ?? entry.identifier
    let place = directory ?? entry.directory
    let type = transitingType ?? entry.transiting.flatMap(TransitingType.init(rawValue:)) ?? .file
    switch entry.kind {
    case .passed, .replayed, .changedWithoutRecord:
      guard let version = state.version(of: entry) else { throw .messageNotKept(entry: entry.id) }
      guard let bytes = version.bytes else { throw .bytesNotKept(size: version.size) }
      return try passArchive(
        bytes, identifier: target, directory: place, transitingType: type,
        replayOf: entry.sequence ?? version.sequence ?? 0)
    case .notification:
      let identifier = try text(target, "replay to")
      let wormhole = try wormhole(place, type, "replay to")
      do {
        return try wormhole.passMessage(nil, identifier: identifier, replayOf: entry.sequence ?? 0)
      } catch {
        throw .wormhole(error)
      }
    case .cleared:
      try clear(identifier: target, directory: place, transitingType: type)
      return nil
    case .clearedAll:
      try clearAll(directory: place, transitingType: type)
      return nil
    default:  // A journal record's kind this build does not know.
      throw .wormhole(
        .invalidName(kind: "traffic kind", name: entry.kind.rawValue, reason: "it cannot be replayed"))
    }
  }

  private func passArchive(
    _ bytes: [UInt8], identifier: FileName, directory: FileName, transitingType: TransitingType,
    replayOf: UInt64
  ) throws(OperationError) -> TrafficRecord {
    let identifier = try text(identifier, "replay to")
    let wormhole = try wormhole(directory, transitingType, "replay to")
    do {
      return try wormhole.passArchive(Data(bytes), identifier: identifier, replayOf: replayOf)
    } catch {
      throw .wormhole(error)
    }
  }

  /// The name as the library takes it, or the error saying it cannot.
  private func text(_ name: FileName, _ operation: String) throws(OperationError) -> String {
    guard let text = name.string else { throw .nameNotText(name, operation: operation) }
    return text
  }

  private func wormhole(_ directory: FileName, _ type: TransitingType, _ operation: String)
    throws(OperationError)
    -> Wormhole
  {
    let path = try text(directory, operation)
    do {
      return try wormholes.wormhole(directory: path, transitingType: type, sender: sender)
    } catch {
      throw .wormhole(error)
    }
  }
}
