import ArchivedValues
import Synchronization

/// A mailbox version's message, decoded on demand by the model's ``ModelState/inspector``.
public enum DecodedMessage: Sendable {
  /// The inspector's view of the archive.
  case message(Inspection)
  /// The bytes are not a readable property list; the reason says what is wrong.
  case undecodable(String)
  /// The model did not keep the bytes (the file was larger than the watcher stores).
  case notStored(size: Int)

  /// One line for a list row, cut to `width` terminal columns.
  public func summary(width: Int) -> String {
    switch self {
    case .message(let inspection): return inspection.summary(width: width)
    case .undecodable(let reason): return "(undecodable: \(reason))"
    case .notStored(let size): return "(\(size) bytes, not kept)"
    }
  }

  /// The value as JSON (the inspector's JSON of the root value), or `null`.
  public var json: String {
    guard case .message(let inspection) = self else { return "null" }
    return inspection.root.json()
  }
}

/// Decoded messages by version serial, shared by every snapshot of a state. Versions never
/// change once made, so a cached decoding is never stale. Holds at most `capacity` decodings and
/// forgets the oldest first.
final class DecodedMessageCache: Sendable {
  private struct Storage {
    var values: [UInt64: DecodedMessage] = [:]
    var order: [UInt64] = []
    var start = 0
  }

  private let capacity: Int
  private let storage = Mutex(Storage())

  init(capacity: Int) { self.capacity = max(capacity, 1) }

  func value(for serial: UInt64, make: () -> DecodedMessage) -> DecodedMessage {
    if let cached = storage.withLock({ $0.values[serial] }) { return cached }
    // Decode outside the lock: a large archive must not stall other readers.
    let decoded = make()
    storage.withLock { storage in
      guard storage.values[serial] == nil else { return }
      storage.values[serial] = decoded
      storage.order.append(serial)
      while storage.values.count > capacity && storage.start < storage.order.count {
        storage.values[storage.order[storage.start]] = nil
        storage.start += 1
      }
      if storage.start > 1_024 && storage.start > storage.order.count / 2 {
        storage.order.removeFirst(storage.start)
        storage.start = 0
      }
    }
    return decoded
  }
}

extension ModelState {
  /// The message of `version`, decoded through ``inspector`` the first time it is asked for and
  /// cached after that.
  public func decoded(_ version: MailboxVersion) -> DecodedMessage {
    decodedCache.value(for: version.serial) {
      guard let bytes = version.bytes else { return .notStored(size: version.size) }
      do {
        return .message(try inspector.inspect(bytes))
      } catch {
        return .undecodable(String(describing: error))
      }
    }
  }

  /// A one-line summary of `version`'s message, for a list row.
  public func summary(of version: MailboxVersion, width: Int) -> String {
    decoded(version).summary(width: width)
  }
}
