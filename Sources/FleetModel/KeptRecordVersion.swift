import MailboxModel
import PropertyList
import WormholeVocabulary

/// The version a bridge writes again for a record replay (`"op":"replay-record"`): the one the
/// journal record `replay_of` wrote, taken from the bridge's own model history, or why it cannot
/// be, naming the nearest version it keeps, as the dashboard's local replay does.
///
/// Pure: it reads a mailbox and the traffic entries of its directory, so the dashboard's tests
/// and the bridge share it.
public enum KeptRecordVersion {
  /// Why no version is replayed.
  public struct Refusal: Error, Sendable, Equatable {
    public var reason: String
  }

  /// The version of `mailbox` that record `record` wrote: the traffic entry of that sequence
  /// number in `traffic` (the directory's entries, newest last) names the version it recorded,
  /// else a kept version carries the sequence itself. Refused when the record wrote no message
  /// (a clear), wrote another mailbox, or is no longer kept (then the nearest kept version is
  /// named); `historyDepth` is how many earlier versions the model keeps, for the message. A
  /// record that replayed another one resolves to that one's version when it has none of its own.
  public static func resolve(
    record: UInt64, identifier: FileName, mailbox: Mailbox?,
    traffic: some BidirectionalCollection<TrafficEntry>,
    historyDepth: Int, replayChainLimit: Int = 16
  ) -> Result<MailboxVersion, Refusal> {
    let name = identifier.displayField
    let entry = traffic.last { $0.sequence == record }
    if let entry {
      guard entry.identifier == identifier else {
        return .failure(
          Refusal(reason: "record \(record) wrote \(entry.identifier.displayField), not \(name)"))
      }
      guard entry.kind == .passed || entry.kind == .replayed || entry.kind == .changedWithoutRecord else {
        return .failure(
          Refusal(reason: "record \(record) (\(entry.kind.rawValue) \(name)) wrote no message to replay"))
      }
    }
    let kept = (mailbox?.history ?? []) + (mailbox?.current.map { [$0] } ?? [])
    let found =
      entry.flatMap { entry in entry.versionSerial.flatMap { serial in kept.last { $0.serial == serial } } }
      ?? kept.last { $0.sequence == record }
    // A replay wrote the bytes of the record it replayed, and the model keeps no version of its
    // own for bytes it already has (a replay of the current version): resolve that record, up to
    // `replayChainLimit` replays of replays back.
    if found == nil, let entry, entry.kind == .replayed, let earlier = entry.replayOf, earlier < record,
      replayChainLimit > 0
    {
      return resolve(
        record: earlier, identifier: identifier, mailbox: mailbox, traffic: traffic,
        historyDepth: historyDepth, replayChainLimit: replayChainLimit - 1)
    }
    if let found {
      guard found.bytes != nil else {
        return .failure(
          Refusal(
            reason:
              "the version record \(record) wrote (\(found.size) bytes) was too large for the bridge to keep its bytes"
          ))
      }
      return .success(found)
    }
    let keeps = "the bridge keeps \(historyDepth) earlier versions of a mailbox, 64 MiB in all"
    let gone = "the version record \(record) wrote is no longer kept (\(keeps))"
    guard let nearest = nearest(to: record, entry: entry, in: kept) else {
      return .failure(Refusal(reason: "\(gone), and \(name) has no kept version"))
    }
    return .failure(Refusal(reason: "\(gone); nearest kept: " + describe(nearest)))
  }

  /// `record 15 (12 bytes, modified 2026-12-01T18:44:05.123Z)`, or without the record when the
  /// version has none.
  public static func describe(_ version: MailboxVersion) -> String {
    let modified = timestamp(version.modifiedNanoseconds / 1_000_000)
    let facts = "\(version.size) bytes, modified \(modified)"
    guard let sequence = version.sequence else { return "a version without a journal record (\(facts))" }
    return "record \(sequence) (\(facts)); replay_of \(sequence) replays it"
  }

  /// The kept version nearest to `record`: by sequence among those that have one, else by the
  /// time of the record's entry, else the newest.
  private static func nearest(to record: UInt64, entry: TrafficEntry?, in kept: [MailboxVersion])
    -> MailboxVersion?
  {
    let numbered = kept.filter { $0.sequence != nil }
    if !numbered.isEmpty {
      return numbered.min { distance($0.sequence ?? 0, record) < distance($1.sequence ?? 0, record) }
    }
    guard let time = entry?.milliseconds else { return kept.last }
    return kept.min {
      abs($0.modifiedNanoseconds / 1_000_000 - time) < abs($1.modifiedNanoseconds / 1_000_000 - time)
    }
  }

  /// A time as the bridge's messages give it, in UTC: `2026-12-01T18:44:05.123Z`; one beyond
  /// what the format writes (years 0000 to 9999) is written as that end, not trapped on.
  public static func timestamp(_ milliseconds: Int64) -> String {
    let writable = min(max(milliseconds, -62_167_219_200_000), 253_402_300_799_999)
    return CivilTime(millisecondsSince1970: writable).iso8601(alwaysMilliseconds: true)
  }

  private static func distance(_ a: UInt64, _ b: UInt64) -> UInt64 { a > b ? a - b : b - a }
}
