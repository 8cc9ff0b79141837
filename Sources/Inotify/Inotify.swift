import Glibc

/// A Linux inotify instance: the kernel's file-change queue for the watches added to it.
///
/// The descriptor is non-blocking and close-on-exec; read it when it is readable (for example
/// from a `DispatchSourceRead`) with ``readEvents()``. Instances are not shared between threads
/// without outside synchronization.
public final class Inotify {
  /// The inotify file descriptor, for a readiness source.
  public let fileDescriptor: Int32
  private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
  private var isClosed = false

  public init() throws(InotifyError) {
    let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    guard descriptor >= 0 else { throw InotifyError(operation: "inotify_init1", path: nil, code: errno) }
    fileDescriptor = descriptor
  }

  deinit { close() }

  /// Starts (or replaces) a watch on `path` for the events in `mask` and returns its descriptor.
  @discardableResult
  public func addWatch(_ path: String, mask: InotifyMask) throws(InotifyError) -> Int32 {
    let watch = inotify_add_watch(fileDescriptor, path, mask.rawValue)
    guard watch >= 0 else { throw InotifyError(operation: "inotify_add_watch", path: path, code: errno) }
    return watch
  }

  /// Stops a watch. The kernel then queues one ``InotifyMask/ignored`` event for it.
  public func removeWatch(_ watch: Int32) {
    _ = inotify_rm_watch(fileDescriptor, watch)
  }

  /// Every event queued now; an empty array when none is.
  public func readEvents() throws(InotifyError) -> [InotifyEvent] {
    var events: [InotifyEvent] = []
    while true {
      let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN || errno == EWOULDBLOCK { return events }
        throw InotifyError(operation: "read", path: nil, code: errno)
      }
      if count == 0 { return events }
      parse(count: count, into: &events)
    }
  }

  private func parse(count: Int, into events: inout [InotifyEvent]) {
    let headerSize = MemoryLayout<inotify_event>.size
    buffer.withUnsafeBytes { raw in
      var offset = 0
      while offset + headerSize <= count {
        let watch = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
        let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
        let cookie = raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
        let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
        let nameStart = offset + headerSize
        let nameEnd = min(nameStart + length, count)
        var name = ""
        if nameEnd > nameStart {
          let bytes = raw[nameStart..<nameEnd]
          let end = bytes.firstIndex(of: 0) ?? nameEnd
          name = String(decoding: raw[nameStart..<end], as: UTF8.self)
        }
        events.append(
          InotifyEvent(watch: watch, mask: InotifyMask(rawValue: mask), cookie: cookie, name: name))
        offset = nameStart + length
      }
    }
  }

  /// Closes the descriptor; later reads fail. Called by `deinit` too.
  public func close() {
    guard !isClosed else { return }
    isClosed = true
    _ = Glibc.close(fileDescriptor)
  }
}

/// One inotify event.
public struct InotifyEvent: Sendable, Hashable {
  /// The watch it belongs to, or -1 for ``InotifyMask/queueOverflow``.
  public var watch: Int32
  public var mask: InotifyMask
  /// Pairs a ``InotifyMask/movedFrom`` with its ``InotifyMask/movedTo``.
  public var cookie: UInt32
  /// The entry's name inside a watched directory; empty for events on the watched path itself.
  public var name: String
}

/// inotify event bits.
public struct InotifyMask: OptionSet, Sendable, Hashable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  public static let modify = InotifyMask(rawValue: UInt32(IN_MODIFY))
  public static let attributes = InotifyMask(rawValue: UInt32(IN_ATTRIB))
  public static let closeWrite = InotifyMask(rawValue: UInt32(IN_CLOSE_WRITE))
  public static let movedFrom = InotifyMask(rawValue: UInt32(IN_MOVED_FROM))
  public static let movedTo = InotifyMask(rawValue: UInt32(IN_MOVED_TO))
  public static let create = InotifyMask(rawValue: UInt32(IN_CREATE))
  public static let delete = InotifyMask(rawValue: UInt32(IN_DELETE))
  public static let deleteSelf = InotifyMask(rawValue: UInt32(IN_DELETE_SELF))
  public static let moveSelf = InotifyMask(rawValue: UInt32(IN_MOVE_SELF))
  public static let unmount = InotifyMask(rawValue: UInt32(IN_UNMOUNT))
  public static let queueOverflow = InotifyMask(rawValue: UInt32(IN_Q_OVERFLOW))
  public static let ignored = InotifyMask(rawValue: UInt32(IN_IGNORED))
  public static let onlyDirectory = InotifyMask(rawValue: UInt32(IN_ONLYDIR))
  public static let isDirectory = InotifyMask(rawValue: UInt32(IN_ISDIR))
  public static let dontFollow = InotifyMask(rawValue: UInt32(IN_DONT_FOLLOW))
  public static let excludeUnlinked = InotifyMask(rawValue: UInt32(IN_EXCL_UNLINK))
}

/// A failed inotify call, with the system's reason.
public struct InotifyError: Error, Sendable, Equatable, CustomStringConvertible {
  public var operation: String
  public var path: String?
  public var code: Int32

  public init(operation: String, path: String?, code: Int32) {
    self.operation = operation
    self.path = path
    self.code = code
  }

  /// Whether the per-user watch or instance limit was reached (the remedy is to raise
  /// `fs.inotify.max_user_watches` or `max_user_instances`).
  public var isLimitReached: Bool { code == ENOSPC || code == EMFILE }

  public var description: String {
    let reason = String(cString: strerror(code))
    let target = path.map { " \($0)" } ?? ""
    if code == ENOSPC && operation == "inotify_add_watch" {
      return "cannot watch\(target): the inotify watch limit is reached (raise fs.inotify.max_user_watches)"
    }
    if code == EMFILE && operation == "inotify_init1" {
      return "cannot watch: the inotify instance limit is reached (raise fs.inotify.max_user_instances)"
    }
    return "\(operation)\(target): \(reason)"
  }
}
