import TestSupport

/// What a test under the README's ACL starts from: a broker confined by
/// ``BrokerACLTests/acl``, a folder for its users' password files, and homes, each with the
/// pairs it is given made in it. ``remove()`` ends all of it.
struct ACLFixture {
  let broker: TestBroker
  let secrets: TemporaryDirectory
  let homes: [BrokerHome]

  /// One home per element of `pairs`, holding those pairs.
  init(pairs: [[String]]) throws {
    broker = try BrokerACLTests.aclBroker()
    secrets = TemporaryDirectory(prefix: "acl-secrets")
    homes = pairs.map { _ in BrokerHome() }
    do {
      for (home, names) in zip(homes, pairs) {
        for name in names { _ = try home.makePair(name) }
      }
    } catch {
      remove()
      throw error
    }
  }

  /// The environment that connects as `user` (its password in ``secrets``).
  func credentials(_ user: String) -> [String: String] { BrokerACLTests.credentials(user, in: secrets) }

  func remove() {
    broker.stop()
    secrets.remove()
    homes.forEach { $0.remove() }
  }
}
