import Glibc

/// The system refused a pipe (the process or the system ran out of descriptors).
public struct WakePipeError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The `errno` that `pipe(2)` set.
  public var errno: Int32

  public init(errno: Int32) { self.errno = errno }

  public var description: String {
    "cannot make a wake pipe: \(String(cString: strerror(errno))) (close other programs or raise ulimit -n)"
  }
}
