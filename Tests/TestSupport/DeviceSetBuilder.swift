import Foundation
import Glibc
import PropertyList
import Testing
import WormholeVocabulary

/// A CoreSimulator device set built in a fresh temporary directory (removed when the builder
/// goes), for the device-set reader's hostile cases no fixture should hold in git (links, FIFOs,
/// names that are not UTF-8) and for the verbs and the dashboard that show a set. Paths are
/// relative to ``root``, as bytes.
public final class DeviceSetBuilder: Sendable {
  /// The temporary directory; the set is its `Devices` folder.
  public let base: String
  public var root: FileName { FileName(base + "/Devices") }

  public init() {
    var template = Array((NSTemporaryDirectory() + "/device-set-test-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
      guard let pointer = buffer.baseAddress, mkdtemp(pointer) != nil else { return nil }
      return String(cString: pointer)
    }
    base = made ?? NSTemporaryDirectory() + "/device-set-test-\(UUID().uuidString)"
    if made == nil {
      try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    }
    directory(FileName(""))
  }

  deinit { try? FileManager.default.removeItem(atPath: base) }

  /// The full path of `relative` inside the set.
  public func path(_ relative: FileName) -> FileName {
    relative.byteCount == 0 ? root : root.appending(relative)
  }

  /// Makes the directory `relative` and its parents.
  @discardableResult
  public func directory(_ relative: FileName) -> FileName {
    let full = path(relative)
    var prefix: [UInt8] = []
    for (index, byte) in full.bytes.enumerated() {
      if byte == UInt8(ascii: "/") && index > 0 { call(prefix) { mkdir($0, 0o755) } }
      prefix.append(byte)
    }
    call(prefix) { mkdir($0, 0o755) }
    return full
  }

  /// Writes `bytes` to `relative`, making its directory.
  public func file(_ relative: FileName, _ bytes: [UInt8]) {
    directoryOf(relative)
    let full = path(relative)
    let descriptor = call(full.bytes) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    guard descriptor >= 0 else {
      Issue.record("cannot create \(full)")
      return
    }
    defer { close(descriptor) }
    let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    if written != bytes.count { Issue.record("short write to \(full)") }
  }

  /// Writes `value` to `relative` as a binary or an XML property list.
  public func plist(_ relative: FileName, _ value: PropertyListValue, binary: Bool) {
    if binary {
      do {
        file(relative, try BinaryPropertyListWriter().bytes(for: value))
      } catch {
        Issue.record("cannot write \(relative): \(error)")
      }
    } else {
      file(relative, Array(XMLPropertyListText.document(value).utf8))
    }
  }

  /// Makes `relative` a symbolic link to `target`.
  public func link(_ relative: FileName, to target: String) {
    directoryOf(relative)
    let full = path(relative)
    if call(full.bytes, { symlink(target, $0) }) != 0 { Issue.record("cannot link \(full)") }
  }

  /// Makes `relative` a FIFO (which a careless reader would block on).
  public func fifo(_ relative: FileName) {
    directoryOf(relative)
    let full = path(relative)
    if call(full.bytes, { mkfifo($0, 0o644) }) != 0 { Issue.record("cannot make FIFO \(full)") }
  }

  /// Sets the permission bits of `relative`.
  public func permissions(_ relative: FileName, _ mode: mode_t) {
    let full = path(relative)
    if call(full.bytes, { chmod($0, mode) }) != 0 { Issue.record("cannot chmod \(full)") }
  }

  private func directoryOf(_ relative: FileName) {
    let bytes = relative.bytes
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return }
    directory(FileName(bytes: bytes[..<slash]))
  }

  @discardableResult
  private func call(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> Int32) -> Int32 {
    let text = bytes.map { CChar(bitPattern: $0) } + [0]
    return text.withUnsafeBufferPointer { buffer in
      guard let pointer = buffer.baseAddress else { return -1 }
      return body(pointer)
    }
  }

  /// A `device.plist` value as CoreSimulator writes it (with keys this reader ignores).
  public static func device(
    udid: String, name: String, runtime: String = "iOS-17-2", type: String = "iPhone-15", state: Int64 = 1
  ) -> PropertyListValue {
    .dictionary([
      "UDID": .string(udid), "deviceType": .string(SimulatorPrefix.type + type),
      "isDeleted": .boolean(false), "name": .string(name),
      "runtime": .string(SimulatorPrefix.runtime + runtime), "runtimePolicy": .string("exact"),
      "state": .integer(state),
    ])
  }

  /// Container-manager metadata for the group `identifier`.
  public static func metadata(_ identifier: String) -> PropertyListValue {
    .dictionary([
      "MCMMetadataContentClass": .integer(7), "MCMMetadataIdentifier": .string(identifier),
      "MCMMetadataSchemaVersion": .integer(1),
    ])
  }

  /// `device_set.plist` with `pairs` (id, phone, watch, active).
  public static func pairs(_ pairs: [(String, String, String, Bool)]) -> PropertyListValue {
    .dictionary([
      "DevicePairs": .dictionary(
        pairs.map { pair in
          PropertyListEntry(
            key: pair.0,
            value: .dictionary([
              "active": .boolean(pair.3), "companion": .string(pair.1), "gizmo": .string(pair.2),
            ]))
        })
    ])
  }

  /// The relative path of the group container `container` of device `udid`.
  public static func container(_ udid: String, _ container: FileName) -> FileName {
    FileName(udid + "/data/Containers/Shared/AppGroup").appending(container)
  }

  /// The relative path of the metadata file of a group container.
  public static func metadataPath(_ udid: String, _ name: FileName) -> FileName {
    container(udid, name).appending(".com.apple.mobile_container_manager.metadata.plist")
  }
}

public enum SimulatorPrefix {
  public static let runtime = "com.apple.CoreSimulator.SimRuntime."
  public static let type = "com.apple.CoreSimulator.SimDeviceType."
}

/// XML property lists of the few value types the builder writes.
public enum XMLPropertyListText {
  public static func document(_ value: PropertyListValue) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    \(element(value))
    </plist>

    """
  }

  public static func element(_ value: PropertyListValue) -> String {
    switch value {
    case .string(let text): return "<string>\(escaped(text))</string>"
    case .integer(let number): return "<integer>\(number)</integer>"
    case .boolean(let flag): return flag ? "<true/>" : "<false/>"
    case .array(let items): return "<array>" + items.map(element).joined() + "</array>"
    case .dictionary(let entries):
      return "<dict>" + entries.map { "<key>\(escaped($0.key))</key>" + element($0.value) }.joined()
        + "</dict>"
    default:
      Issue.record("the test XML writer does not write \(value)")
      return "<string/>"
    }
  }

  public static func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
  }
}
