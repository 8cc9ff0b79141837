/// Bytes as `xxd` shows them: offset, the bytes in hex in groups of eight, and the printable
/// ASCII, as many bytes to a row as fit the width given.
enum HexDump {
  /// The columns of a row of `count` bytes: offset, two spaces, three per byte, one more space
  /// between groups of eight, a space, then one per byte.
  static func rowWidth(bytesPerRow count: Int) -> Int {
    8 + 2 + 3 * count + max((count - 1) / 8, 0) + 1 + count
  }

  /// The most bytes a row of at most `columns` columns shows: 4, 8, or a multiple of 8 (16
  /// where it fits, as `xxd`), at least 4 even where not even that fits.
  static func bytesPerRow(columns: Int) -> Int {
    guard rowWidth(bytesPerRow: 8) <= columns else { return 4 }
    var count = 8
    while rowWidth(bytesPerRow: count + 8) <= columns && count < 256 { count += 8 }
    return count
  }

  static func lines(_ bytes: [UInt8], columns: Int = 76, limit: Int = 65_536) -> [String] {
    let perRow = bytesPerRow(columns: columns)
    var lines: [String] = []
    let digits = Array("0123456789abcdef")
    var offset = 0
    while offset < min(bytes.count, limit) {
      let row = bytes[offset..<min(offset + perRow, bytes.count)]
      var line = String(offset, radix: 16)
      line = String(repeating: "0", count: max(8 - line.count, 0)) + line + " "
      for (index, byte) in row.enumerated() {
        line += index % 8 == 0 && index > 0 ? "  " : " "
        line.append(digits[Int(byte >> 4)])
        line.append(digits[Int(byte & 0xF)])
      }
      let missing = perRow - row.count
      if missing > 0 {
        line += String(repeating: " ", count: rowWidth(bytesPerRow: perRow) - perRow - 2 - line.count)
      }
      line += "  "
      for byte in row { line.append(byte >= 0x20 && byte < 0x7F ? Character(Unicode.Scalar(byte)) : ".") }
      lines.append(line)
      offset += perRow
    }
    if bytes.count > limit { lines.append("… \(bytes.count - limit) more bytes") }
    return lines
  }
}
