extension RemoteRequest {
  /// Where to answer a payload that ``init(payload:)`` refused: the `reply_to` it names when that
  /// is a client's reply topic (``BridgeTopics/client(ofReplyTopic:)``), with its `id` when the id
  /// is acceptable; `nil` when there is nowhere to answer (too large, not a JSON object, no
  /// acceptable `reply_to`), and the refusal can only be logged. A payload refused for a repeated
  /// key is answered too (on the last `reply_to` it names, which must still be a client's).
  public static func replyRoute(of payload: [UInt8]) -> (id: String?, replyTo: String)? {
    let object: JSONObject
    do throws(FleetProtocolError) {
      object = try JSONObject(
        payload: payload, limit: maximumPayloadByteCount, checkingVersion: false, allowingDuplicateKeys: true)
    } catch {
      return nil
    }
    guard let replyTo = try? object.string("reply_to"), replyTo.utf8.count <= maximumReplyTopicByteCount,
      BridgeTopics.client(ofReplyTopic: replyTo) != nil
    else { return nil }
    var id = (try? object.optionalString("id")) ?? nil
    if let candidate = id, !isAcceptableID(candidate) { id = nil }
    return (id, replyTo)
  }
}
