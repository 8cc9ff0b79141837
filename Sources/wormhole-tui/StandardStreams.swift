import Foundation
import Glibc
import KeyedArchive

/// Writes `text` and a newline to standard output in one unbuffered write, so that a reader at
/// the other end of a pipe sees each line whole, as soon as it is made. A write that fails ends
/// the process (see ``StandardStreams/writeOutput(_:)``).
func emit(_ text: String) {
  var line = text + "\n"
  line.withUTF8 { StandardStreams.writeOutput(UnsafeRawBufferPointer($0)) }
}

/// Writes `text` to standard output as it is.
func emitRaw(_ text: String) {
  var text = text
  text.withUTF8 { StandardStreams.writeOutput(UnsafeRawBufferPointer($0)) }
}

/// Writes `bytes` to standard output as they are (`read --raw`).
func emitRaw(_ bytes: Data) {
  bytes.withUnsafeBytes { StandardStreams.writeOutput($0) }
}

/// Writes a diagnostic line to standard error, with anything a terminal would act on escaped
/// (whatever the caller quoted or forgot to).
func diagnose(_ text: String) {
  var line = "wormhole-tui: \(DisplayText.escaped(text))\n"
  line.withUTF8 { StandardStreams.writeError(UnsafeRawBufferPointer($0)) }
}

/// Standard output and standard error, written with `write(2)` and checked: never through
/// `FileHandle`, whose `write` stops the process on a full disk or a closed pipe.
enum StandardStreams {
  /// Opens `/dev/null` (read-only) on any of descriptors 0, 1 and 2 that is closed, so that no
  /// file the program opens later takes the place of standard output, and a write to a closed
  /// standard output fails (with `EBADF`) and is reported like any other.
  static func secure() {
    for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO]
    where fcntl(descriptor, F_GETFD) < 0 && errno == EBADF {
      let opened = open("/dev/null", O_RDONLY)
      // Descriptors are allocated lowest first, so this fills the gap; anything else is closed.
      if opened >= 0 && opened != descriptor { close(opened) }
    }
  }

  /// Writes all of `bytes` to standard output. When that fails the process ends: quietly, as
  /// conventional tools do, when the reader has gone (`EPIPE`); otherwise with one line on
  /// standard error ("cannot write to standard output: No space left on device") and exit 3,
  /// so that no verb, and no follower, goes on having written nothing.
  static func writeOutput(_ bytes: UnsafeRawBufferPointer) {
    let code = writeAll(STDOUT_FILENO, bytes)
    guard code != 0 else { return }
    if code == EPIPE { Termination.endForBrokenPipe() }
    diagnose("cannot write to standard output: \(String(cString: strerror(code)))")
    Termination.exit(.failure)
  }

  /// Writes all of `bytes` to standard error. A diagnostic that cannot be written is dropped:
  /// there is nowhere left to say so, and the exit code still tells.
  static func writeError(_ bytes: UnsafeRawBufferPointer) {
    _ = writeAll(STDERR_FILENO, bytes)
  }

  /// Writes all of `bytes` to `descriptor`; 0, or the `errno` of the write that failed.
  private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    guard let base = bytes.baseAddress else { return 0 }
    var offset = 0
    while offset < bytes.count {
      let written = write(descriptor, base + offset, bytes.count - offset)
      if written > 0 {
        offset += written
        continue
      }
      guard written < 0 else { return EIO }
      let code = errno
      switch code {
      case EINTR: continue
      case EAGAIN:  // also EWOULDBLOCK, the same number on Linux
        // A descriptor shared with a non-blocking reader or terminal: wait until it drains.
        var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        _ = poll(&ready, 1, -1)
      default: return code
      }
    }
    return 0
  }
}
