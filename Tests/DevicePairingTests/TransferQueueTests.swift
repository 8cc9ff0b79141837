import Testing

@testable import DeviceSession

@Suite struct TransferQueueTests {
  static func transfer(_ id: UInt64) -> FileTransfer {
    FileTransfer(id: id, identifier: "t", payload: [], time: 0)
  }

  @Test func transfersLeaveFromTheFrontOrTheMiddleAndStayInOrder() {
    var queue = TransferQueue([5, 1, 3, 2, 4].map(Self.transfer))
    #expect(queue.transfers.map(\.id) == [1, 2, 3, 4, 5])
    let removed = [queue.remove(1), queue.remove(3), queue.remove(3), queue.remove(9)]
    #expect(removed == [true, true, false, false] && !queue.contains(1))
    queue.append(Self.transfer(6))
    #expect(queue.transfers.map(\.id) == [2, 4, 5, 6])
    for id in [2, 4, 5, 6] as [UInt64] {
      let removed = queue.remove(id)
      #expect(removed)
    }
    #expect(queue.isEmpty)
  }

  @Test func acknowledgingALongQueueInOrderKeepsWhatIsLeft() {
    var queue = TransferQueue((1...5000).map(Self.transfer))
    let removed = (1...UInt64(4000)).map { queue.remove($0) }
    #expect(removed.allSatisfy { $0 })
    #expect(queue.transfers.map(\.id) == Array(4001...5000))
    #expect(queue.contains(4500) && !queue.contains(4000))
  }
}
