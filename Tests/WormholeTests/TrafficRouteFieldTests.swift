import Testing

@testable import Wormhole

/// The `route` and `payload` fields of push and deep-link records: written only when set (the
/// route as a JSON object, never a string), read back, and absent from older records.
@Suite struct TrafficRouteFieldTests {
  func record(route: String?, payload: String?, kind: TrafficKind = .push) -> TrafficRecord {
    TrafficRecord(
      sequence: 3, milliseconds: 1_764_420_069_123, processIdentifier: 5, sender: "device",
      transiting: "file",
      kind: kind, identifier: "promo", bytes: 38, outcome: .ok,
      details: TrafficDetails(device: "r1/phone", transfer: "ab", route: route, payload: payload))
  }

  @Test func aRouteIsWrittenAsAnObjectAndReadsBack() throws {
    let route =
      #"{"taken":"delegate","subject":"a\"b","cut_off":[{"kind":"push","index":1,"pattern":"(a+)+$","label":"f:2","reason":"PCRE2 match limit"}],"not_tried":[{"kind":"push","index":2,"pattern":"x"}]}"#
    let payload = #"{"aps":{"notification_id":"promo-7"}}"#
    let written = record(route: route, payload: payload)
    let line = written.jsonLine
    #expect(
      line.hasSuffix(#","transfer":"ab","route":"# + route + #","payload":"# + JSONText.string(payload) + "}")
    )
    let read = try #require(TrafficRecord(jsonLine: line))
    #expect(read.route == route && read.payload == payload && read.kind == .push)
    #expect(read.details == written.details && read == written)
    #expect(TrafficKind.deepLink.rawValue == "deep-link" && TrafficKind.push.rawValue == "push")
  }

  @Test func fieldsAreLeftOutUnlessSetAndValid() throws {
    let bare = record(route: nil, payload: nil).jsonLine
    #expect(!bare.contains("route") && !bare.contains("payload"))
    // Text that is not one JSON object would break the line: it is not written.
    for bad in ["[1]", #""text""#, "{", #"{"a":1} {"b":2}"#] {
      #expect(!record(route: bad, payload: nil).jsonLine.contains("route"), "\(bad)")
    }
    let long = String(repeating: "a", count: TrafficRecord.maximumPayloadBytes + 1)
    #expect(!record(route: nil, payload: long).jsonLine.contains("payload"))
    let limit = String(repeating: "a", count: TrafficRecord.maximumPayloadBytes)
    #expect(TrafficRecord(jsonLine: record(route: nil, payload: limit).jsonLine)?.payload == limit)
    let old =
      #"{"seq":1,"time":"2026-11-29T12:41:09.123Z","pid":4,"sender":"s","transiting":"file","kind":"pass","identifier":"a","bytes":5,"outcome":"ok"}"#
    let oldRecord = try #require(TrafficRecord(jsonLine: old))
    #expect(oldRecord.route == nil && oldRecord.payload == nil && oldRecord.details.isEmpty)
    // A route of another type than an object is not taken, but kept in the stored line.
    let odd = try #require(
      TrafficRecord(jsonLine: old.replacingOccurrences(of: "}", with: #","route":"x"}"#)))
    #expect(odd.route == nil && odd.storedField("route") == .string("x"))
  }
}
