/// Bytes as `xxd` shows them: offset, sixteen bytes in hex, and the printable ASCII.
enum HexDump {
  static func lines(_ bytes: [UInt8], limit: Int = 65_536) -> [String] {
    var lines: [String] = []
    let digits = Array("0123456789abcdef")
    var offset = 0
    while offset < min(bytes.count, limit) {
      let row = bytes[offset..<min(offset + 16, bytes.count)]
      var line = String(offset, radix: 16)
      line = String(repeating: "0", count: max(8 - line.count, 0)) + line + "  "
      for (index, byte) in row.enumerated() {
        line.append(digits[Int(byte >> 4)])
        line.append(digits[Int(byte & 0xF)])
        line += index == 7 ? "  " : " "
      }
      line += String(repeating: " ", count: (16 - row.count) * 3 + (row.count <= 7 ? 1 : 0))
      line += " "
      for byte in row { line.append(byte >= 0x20 && byte < 0x7F ? Character(Unicode.Scalar(byte)) : ".") }
      lines.append(line)
      offset += 16
    }
    if bytes.count > limit { lines.append("… \(bytes.count - limit) more bytes") }
    return lines
  }
}
