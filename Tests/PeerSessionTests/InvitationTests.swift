import PeerSession
import Testing

@Suite struct InvitationTests {
  @Test func anAcceptedInvitationConnectsBothSides() throws {
    let network = ScriptedNetwork()
    let inviter = try TestPeer("phone", network: network)
    let invitee = try TestPeer("desk", network: network)
    try connect(inviter, invitee, network: network)
    #expect(inviter.events.states(of: invitee.identity) == [.connecting, .connected])
    #expect(invitee.events.states(of: inviter.identity) == [.connecting, .connected])
    #expect(inviter.engine.connectedPeers == [invitee.identity])
    #expect(invitee.engine.connectedPeers == [inviter.identity])
    // The invitee saw the archived context as it was sent.
    let invitations = invitee.events.events.compactMap {
      if case .invitation(let invitation, .always) = $0 { return invitation }
      return nil
    }
    #expect(invitations.map(\.context) == [[1, 2, 3]])
    #expect(invitations.map(\.peer) == [inviter.identity])
    #expect(throws: PeerError.alreadyConnected(invitee.identity)) {
      try inviter.engine.invite(invitee.identity)
    }
  }

  @Test func aDeclinedInvitationGoesBackToNotConnected() throws {
    let network = ScriptedNetwork()
    let inviter = try TestPeer("phone", network: network)
    let invitee = try TestPeer("desk", network: network)
    try invitee.engine.startAdvertising(policy: .never)
    try inviter.engine.startBrowsing()
    network.run()
    try inviter.engine.invite(invitee.identity)
    network.run()
    #expect(inviter.events.states(of: invitee.identity) == [.connecting, .notConnected])
    #expect(inviter.events.reason(for: invitee.identity) == .declined)
    #expect(invitee.events.reason(for: inviter.identity) == .declined)
    #expect(inviter.engine.state(of: invitee.identity) == .notConnected)
  }

  @Test func anUnansweredInvitationTimesOutOnBothSides() throws {
    let network = ScriptedNetwork()
    let timer = ManualTimer()
    let inviter = try TestPeer("phone", network: network, timer: timer)
    let invitee = try TestPeer("desk", network: network)
    try invitee.engine.startAdvertising(policy: .ask)
    try inviter.engine.startBrowsing()
    network.run()
    try inviter.engine.invite(invitee.identity, timeout: 2.5)
    network.run()
    #expect(timer.delays == [2.5])
    #expect(inviter.engine.state(of: invitee.identity) == .connecting)
    #expect(invitee.engine.state(of: inviter.identity) == .connecting)
    let pending = try #require(invitee.engine.pendingInvitations.first)
    timer.fireAll()
    network.run()
    #expect(inviter.events.reason(for: invitee.identity) == .timedOut)
    #expect(invitee.events.reason(for: inviter.identity) == .timedOut)
    #expect(invitee.engine.pendingInvitations.isEmpty)
    // Too late to answer.
    #expect(throws: PeerError.invitationNotPending(inviter.identity, id: pending.id)) {
      try invitee.engine.answer(pending, accept: true)
    }
  }

  @Test func anAskedInvitationWaitsForAnExplicitAnswer() throws {
    let network = ScriptedNetwork()
    let timer = ManualTimer()
    let inviter = try TestPeer("phone", network: network, timer: timer)
    let invitee = try TestPeer("desk", network: network)
    try invitee.engine.startAdvertising(policy: .ask)
    try inviter.engine.startBrowsing()
    network.run()
    try inviter.engine.invite(invitee.identity, context: [9])
    network.run()
    let invitation = try #require(invitee.engine.pendingInvitations.first)
    #expect(invitation.context == [9])
    #expect(invitee.events.events.contains(.invitation(invitation, policy: .ask)))
    #expect(inviter.engine.state(of: invitee.identity) == .connecting)
    try invitee.engine.answer(invitation, accept: true)
    network.run()
    #expect(inviter.engine.state(of: invitee.identity) == .connected)
    #expect(invitee.engine.state(of: inviter.identity) == .connected)
    // The timer firing afterwards changes nothing.
    timer.fireAll()
    network.run()
    #expect(inviter.engine.state(of: invitee.identity) == .connected)
    #expect(throws: PeerError.invitationNotPending(inviter.identity, id: invitation.id)) {
      try invitee.engine.answer(invitation, accept: true)
    }
  }

  @Test func anAskedInvitationCanBeDeclined() throws {
    let network = ScriptedNetwork()
    let inviter = try TestPeer("phone", network: network)
    let invitee = try TestPeer("desk", network: network)
    try invitee.engine.startAdvertising(policy: .ask)
    try inviter.engine.startBrowsing()
    network.run()
    try inviter.engine.invite(invitee.identity)
    network.run()
    try invitee.engine.answer(try #require(invitee.engine.pendingInvitations.first), accept: false)
    network.run()
    #expect(inviter.events.reason(for: invitee.identity) == .declined)
    #expect(invitee.events.reason(for: inviter.identity) == .declined)
  }

  @Test func anInviterThatHangsUpWhileAskingLeavesTheInviteeNotConnected() throws {
    let network = ScriptedNetwork()
    let inviter = try TestPeer("phone", network: network)
    let invitee = try TestPeer("desk", network: network)
    try invitee.engine.startAdvertising(policy: .ask)
    try inviter.engine.startBrowsing()
    network.run()
    try inviter.engine.invite(invitee.identity)
    network.run()
    network.kill(inviter.identity)
    network.run()
    #expect(invitee.events.reason(for: inviter.identity) == .hungUp)
    #expect(invitee.engine.pendingInvitations.isEmpty)
  }

  @Test func aPeerNotFoundCannotBeInvited() throws {
    let network = ScriptedNetwork()
    let inviter = try TestPeer("phone", network: network)
    let stranger = PeerIdentity(name: try PeerName("desk"))
    #expect(throws: PeerError.notFound(stranger)) { try inviter.engine.invite(stranger) }
    #expect(PeerError.notFound(stranger).description.contains("desk"))
  }
}
