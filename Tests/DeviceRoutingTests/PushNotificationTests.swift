import DeviceRouting
import Testing

@Suite struct PushNotificationTests {
  /// A payload of exactly `size` bytes: an `aps` dictionary, padded by a string.
  static func payload(size: Int) -> [UInt8] {
    let head = #"{"aps":{"alert":"hi","notification_id":"n-1"},"pad":""#
    let tail = #""}"#
    let padding = size - head.utf8.count - tail.utf8.count
    return Array((head + String(repeating: "x", count: padding) + tail).utf8)
  }

  @Test func aPayloadOfFourKilobytesIsAcceptedAndOneByteMoreIsRefusedWithItsSize() throws {
    let largest = Self.payload(size: 4096)
    #expect(largest.count == 4096)
    let push = try PushNotification(json: largest)
    #expect(push.bytes == largest)
    #expect(push.apsString(forKey: "notification_id") == "n-1")
    #expect(push.targetBundle == nil)

    let over = Self.payload(size: 4097)
    #expect(throws: PushPayloadError.tooLarge(size: 4097, limit: 4096)) { try PushNotification(json: over) }
    #expect(
      PushPayloadError.tooLarge(size: 4097, limit: 4096).description
        == "the payload is 4097 bytes; a push notification holds at most 4096")
  }

  @Test func aPayloadThatIsNotAnObjectIsRefusedWithWhatItIs() {
    #expect(throws: PushPayloadError.notAnObject(found: "an array")) {
      try PushNotification(json: #"[{"aps":{}}]"#)
    }
    #expect(throws: PushPayloadError.notAnObject(found: "a string")) { try PushNotification(json: #""aps""#) }
    #expect(throws: PushPayloadError.notAnObject(found: "a number")) { try PushNotification(json: "42") }
    #expect(
      PushPayloadError.notAnObject(found: "an array").description
        == "the payload must be a JSON object, not an array")
  }

  @Test func aPayloadThatIsNotJSONIsRefusedWithWhereItStops() {
    do {
      _ = try PushNotification(json: #"{"aps": {"#)
      Issue.record("accepted")
    } catch {
      guard case .notJSON(let reason) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(reason.offset == 9)
      #expect(error.description.hasPrefix("the payload is not valid JSON at byte 9"))
    }
    #expect(throws: PushPayloadError.self) { try PushNotification(json: "") }
  }

  @Test func aPayloadWithoutAnApsDictionaryIsRefused() {
    #expect(throws: PushPayloadError.missingAps) { try PushNotification(json: #"{"alert":"hi"}"#) }
    #expect(throws: PushPayloadError.missingAps) { try PushNotification(json: #"{"APS":{}}"#) }
    #expect(throws: PushPayloadError.apsNotADictionary(found: "a string")) {
      try PushNotification(json: #"{"aps":"hi"}"#)
    }
  }

  /// `xcrun simctl push` reads the target application from this key.
  @Test func theSimulatorTargetBundleKeyIsAcceptedAndReported() throws {
    let push = try PushNotification(json: #"{"Simulator Target Bundle":"com.example.app","aps":{"badge":1}}"#)
    #expect(push.targetBundle == "com.example.app")
    #expect(push.entries.count == 2)
    #expect(push.apsString(forKey: "notification_id") == nil)
    #expect(throws: PushPayloadError.badTargetBundle(found: "a number")) {
      try PushNotification(json: #"{"Simulator Target Bundle":7,"aps":{}}"#)
    }
    #expect(throws: PushPayloadError.badTargetBundle(found: "an empty string")) {
      try PushNotification(json: #"{"Simulator Target Bundle":"","aps":{}}"#)
    }
  }

  @Test func aRepeatedKeyKeepsItsLastValue() throws {
    let push = try PushNotification(json: #"{"aps":{"notification_id":"a","notification_id":"b"}}"#)
    #expect(push.apsString(forKey: "notification_id") == "b")
  }
}
