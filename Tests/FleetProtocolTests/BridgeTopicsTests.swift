import FleetProtocol
import Testing
import WormholeVocabulary

@Suite struct BridgeTopicsTests {
  @Test func everyTopicOfAMachineIsRecognizedAndHostileLevelsAreNot() {
    let machine = "ci/runner+3#"
    #expect(BridgeTopics.kind(of: BridgeTopics.presence(machine: machine)) == .presence(machine: machine))
    #expect(BridgeTopics.kind(of: BridgeTopics.bridge(machine: machine)) == .bridge(machine: machine))
    #expect(BridgeTopics.kind(of: BridgeTopics.traffic(machine: machine)) == .traffic(machine: machine))
    #expect(BridgeTopics.kind(of: BridgeTopics.requests(machine: machine)) == .requests(machine: machine))
    let directory = FileName(bytes: Array("/tmp/a b".utf8) + [0xFF])
    let mailbox = BridgeTopics.mailbox(machine: machine, directory: directory, identifier: "x+y")
    #expect(mailbox == "wormhole/v1/machines/ci%2Frunner%2B3%23/mailboxes/%2Ftmp%2Fa%20b%FF/x%2By")
    #expect(
      BridgeTopics.kind(of: mailbox) == .mailbox(machine: machine, directory: directory, identifier: "x+y"))
    #expect(BridgeTopics.requests(machine: "m") == "wormhole/v1/machines/m/requests")
    #expect(BridgeTopics.bridge(machine: "m") == "wormhole/v1/machines/m/bridge")
    for stranger in [
      "wormhole/v1/machines/m/requests/extra", "wormhole/v1/machines/m%2f/bridge",
      "wormhole/v1/machines/+/bridge",
      "wormhole/v1/machines//presence", "wormhole/v2/machines/m/bridge", "wormhole/v1/machines/m/other",
    ] {
      #expect(BridgeTopics.kind(of: stranger) == nil, "\(stranger)")
    }
  }

  @Test func aReplyTopicIsExactlyOneClientLevelUnderClients() {
    #expect(BridgeTopics.replies(client: "dash/1") == "wormhole/v1/clients/dash%2F1/replies")
    #expect(BridgeTopics.client(ofReplyTopic: "wormhole/v1/clients/dash%2F1/replies") == "dash/1")
    for outside in [
      "wormhole/v1/machines/m/presence", "wormhole/v1/clients/+/replies", "wormhole/v1/clients/#",
      "wormhole/v1/clients//replies", "wormhole/v1/clients/a/b/replies", "wormhole/v1/clients/a/replies/",
      "wormhole/v1/clients/a", "other/v1/clients/a/replies", "wormhole/v1/clients/%zz/replies",
    ] {
      #expect(BridgeTopics.client(ofReplyTopic: outside) == nil, "\(outside)")
    }
  }
}
