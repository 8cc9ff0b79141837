import Synchronization
import WormholeVocabulary

/// One ``Wormhole`` per directory, transiting type and sender, made on first use and kept, so
/// that its journal stays open between operations. It never creates a directory.
package final class WormholeCache: Sendable {
  private struct Key: Hashable {
    var directory: String
    var type: TransitingType
    var sender: String
  }

  private let wormholes = Mutex<[Key: Wormhole]>([:])

  package init() {}

  /// The wormhole of `directory` for `transitingType`, writing journal records as `sender`.
  package func wormhole(directory: String, transitingType: TransitingType, sender: String)
    throws(WormholeError)
    -> Wormhole
  {
    let key = Key(directory: directory, type: transitingType, sender: sender)
    if let existing = wormholes.withLock({ $0[key] }) { return existing }
    var options = Wormhole.Options()
    options.sender = sender
    options.createsDirectory = false
    let made = try Wormhole(directory: directory, transitingType: transitingType, options: options)
    wormholes.withLock { $0[key] = made }
    return made
  }
}
