import TerminalInput

/// The bytes of one bracketed paste, from after the terminal's `ESC [ 200 ~` to its
/// `ESC [ 201 ~`, collected chunk by chunk as they are read: a pure accumulator, tested without
/// a terminal.
///
/// Memory stays bounded: past ``limit`` bytes the text is dropped and only counted, and the
/// paste becomes ``TerminalEvent/pasteTooLarge(byteCount:)``. Bytes read after the end marker
/// (keys typed right after the paste) are kept in ``leftover`` for the key decoder.
struct BracketedPaste {
  /// What ends a paste.
  static let endMarker: [UInt8] = Array("\u{1B}[201~".utf8)

  /// The most bytes kept as text.
  let limit: Int
  /// Whether the end marker has arrived.
  private(set) var isComplete = false
  /// Bytes after the end marker.
  private(set) var leftover: [UInt8] = []
  /// The bytes of the paste counted so far (those not yet known not to start the marker aside).
  private(set) var byteCount = 0

  private var kept: [UInt8] = []
  /// The last bytes read, which may be the start of the end marker.
  private var unresolved: [UInt8] = []
  private var isTooLarge = false

  init(limit: Int) { self.limit = limit }

  /// Takes the next bytes read from the terminal.
  mutating func append(_ chunk: some Collection<UInt8>) {
    guard !isComplete else {
      leftover += chunk
      return
    }
    let searchFrom = max(unresolved.count - (Self.endMarker.count - 1), 0)
    unresolved += chunk
    if let end = Self.firstIndex(of: Self.endMarker, in: unresolved, from: searchFrom) {
      take(end)
      leftover = Array(unresolved[(end + Self.endMarker.count)...])
      unresolved = []
      isComplete = true
    } else {
      // All but the last few bytes are text: those could still begin the marker.
      let settled = unresolved.count - (Self.endMarker.count - 1)
      if settled > 0 {
        take(settled)
        unresolved.removeFirst(settled)
      }
    }
  }

  /// The paste as an event; a paste that never ended (the terminal stopped sending) is what
  /// arrived.
  mutating func finish() -> TerminalEvent {
    if !isComplete {
      take(unresolved.count)
      unresolved = []
    }
    if isTooLarge { return .pasteTooLarge(byteCount: byteCount) }
    return .paste(String(decoding: Self.unixLineEnds(kept), as: UTF8.self))
  }

  /// Counts the first `count` unresolved bytes as text, keeping them while under the limit.
  private mutating func take(_ count: Int) {
    byteCount += count
    guard !isTooLarge else { return }
    if byteCount > limit {
      isTooLarge = true
      kept = []
    } else {
      kept += unresolved[..<count]
    }
  }

  /// `bytes` with CR LF and lone CR (what terminals send for a line end) as LF.
  static func unixLineEnds(_ bytes: [UInt8]) -> [UInt8] {
    guard bytes.contains(0x0D) else { return bytes }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var afterReturn = false
    for byte in bytes {
      if byte == 0x0A && afterReturn {
        afterReturn = false
        continue
      }
      afterReturn = byte == 0x0D
      out.append(afterReturn ? 0x0A : byte)
    }
    return out
  }

  static func firstIndex(of pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
    guard bytes.count >= pattern.count, start <= bytes.count - pattern.count else { return nil }
    var index = start
    let first = pattern[0]
    while index <= bytes.count - pattern.count {
      if bytes[index] == first, bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
      index += 1
    }
    return nil
  }
}
