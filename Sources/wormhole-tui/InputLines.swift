import Glibc

/// Standard input, one line at a time, as bytes: read as it arrives (so `pass --lines` passes
/// each line as soon as its newline is written) and never decoded lossily.
struct InputLines {
  private let descriptor: Int32
  private var buffer: [UInt8] = []
  private var start = 0
  /// Where the search for the next newline goes on: bytes before it, from `start`, hold none.
  /// Each byte is looked at once, however long the line (a 50 MB line is not rescanned per read).
  private var scanned = 0
  private var ended = false

  init(descriptor: Int32 = STDIN_FILENO) { self.descriptor = descriptor }

  /// The next line without its newline, or `nil` at the end of the input. A last line without
  /// a newline is still a line.
  mutating func next() throws(CommandError) -> [UInt8]? {
    while true {
      if let newline = buffer[max(scanned, start)...].firstIndex(of: UInt8(ascii: "\n")) {
        let line = Array(buffer[start..<newline])
        start = newline + 1
        scanned = start
        return line
      }
      scanned = buffer.count
      if ended {
        guard start < buffer.count else { return nil }
        let line = Array(buffer[start...])
        start = buffer.count
        return line
      }
      // Keep only the unfinished line, then read more.
      buffer.removeSubrange(..<start)
      scanned -= start
      start = 0
      var chunk = [UInt8](repeating: 0, count: 65536)
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        let code = errno
        if code == EINTR { continue }
        if code == EAGAIN {
          // A descriptor shared with a non-blocking writer: wait for input.
          var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
          _ = poll(&ready, 1, -1)
          continue
        }
        throw .failure("cannot read standard input: \(String(cString: strerror(code)))")
      }
      if count == 0 {
        ended = true
      } else {
        buffer.append(contentsOf: chunk[..<count])
      }
    }
  }
}
