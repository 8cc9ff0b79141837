/// Base64 (RFC 4648, the standard alphabet with `=` padding), as XML property lists store data
/// and the inspector's JSON writes it; without Foundation.
package enum Base64 {
  private static let alphabet: [UInt8] = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// Each byte's value in the alphabet, or 0xFF for bytes outside it.
  private static let values: [UInt8] = {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
    return table
  }()

  /// `bytes` in base64, padded to a multiple of four characters.
  package static func encoded(_ bytes: some Collection<UInt8>) -> String {
    var out = [UInt8]()
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var iterator = bytes.makeIterator()
    while let first = iterator.next() {
      let second = iterator.next()
      let third = iterator.next()
      let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
      out.append(alphabet[Int(group >> 18 & 0x3F)])
      out.append(alphabet[Int(group >> 12 & 0x3F)])
      out.append(second == nil ? UInt8(ascii: "=") : alphabet[Int(group >> 6 & 0x3F)])
      out.append(third == nil ? UInt8(ascii: "=") : alphabet[Int(group & 0x3F)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The bytes `text` encodes, or `nil` unless it is whole groups of four alphabet characters,
  /// the last possibly ending in one or two `=` (whitespace is not accepted: strip it first).
  package static func decoded(_ text: some StringProtocol) -> [UInt8]? {
    let input = Array(text.utf8)
    guard input.count % 4 == 0 else { return nil }
    var out = [UInt8]()
    out.reserveCapacity(input.count / 4 * 3)
    var index = 0
    while index < input.count {
      let isLast = index + 4 == input.count
      var group: UInt32 = 0
      var padding = 0
      for offset in 0..<4 {
        let byte = input[index + offset]
        if byte == UInt8(ascii: "=") && isLast && offset >= 2 {
          padding += 1
          group <<= 6
          continue
        }
        let value = values[Int(byte)]
        guard value != 0xFF, padding == 0 else { return nil }
        group = group << 6 | UInt32(value)
      }
      out.append(UInt8(group >> 16 & 0xFF))
      if padding < 2 { out.append(UInt8(group >> 8 & 0xFF)) }
      if padding < 1 { out.append(UInt8(group & 0xFF)) }
      index += 4
    }
    return out
  }
}
