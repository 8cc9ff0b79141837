import Foundation
import PropertyList
import WormholeVocabulary

/// A device set as a Mac's Xcode leaves it, built from the description of CoreSimulator's
/// layout: two phone/watch pairs (the first active), a binary and an XML `device.plist`, a
/// watch whose `device.plist` is missing (one note), and real archives made by Apple's
/// NSKeyedArchiver (`Tests/KeyedArchiveTests/Fixtures`, copied from /work/shared/fixtures) as
/// the mailboxes of the active phone's group.
///
/// ```
/// Devices/
///   device_set.plist                        pairs: active (phone, watch), inactive (SE, absent plist)
///   <phone>/device.plist (binary)           "Ana's iPhone", iPhone 15 Pro, iOS 17.2, booted
///     …/AppGroup/<phoneGroup>/              group.com.example.wormhole: three Apple archives
///   <watch>/device.plist (XML)              "Ana's Watch", Apple Watch Series 9, watchOS 10.2, booted
///     …/AppGroup/<watchGroup>/wormhole/     group.com.example.wormhole: one Apple archive
///   <oldPhone>/device.plist (XML)           "iPhone SE", iOS 16.4, shutdown (no groups)
///   <oldWatch>/ (no device.plist)           …/AppGroup/<oldWatchGroup>/: group.com.example.old, empty
/// ```
public struct RealisticDeviceSet: Sendable {
  public static let phone = "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0"
  public static let watch = "7A6B5C4D-3E2F-1A0B-9C8D-7E6F5A4B3C2D"
  public static let oldPhone = "1B2C3D4E-5F60-7182-93A4-B5C6D7E8F901"
  public static let oldWatch = "E0D1C2B3-A495-8677-6859-4A3B2C1D0E0F"
  public static let activePair = "5D4C3B2A-1908-F7E6-D5C4-B3A291807F6E"
  public static let inactivePair = "9F8E7D6C-5B4A-3928-1706-F5E4D3C2B1A0"
  public static let phoneGroup: FileName = "9A8B7C6D-5E4F-3A2B-1C0D-9E8F7A6B5C4D"
  public static let watchGroup: FileName = "3C4D5E6F-7A8B-9C0D-1E2F-3A4B5C6D7E8F"
  public static let oldWatchGroup: FileName = "6F5E4D3C-2B1A-0987-6543-210FEDCBA987"
  public static let group = "group.com.example.wormhole"
  /// The Apple archives in the phone's group, by mailbox identifier.
  public static let phoneArchives = [
    "attributed": "NSAttributedString.archive", "length": "NSMeasurement-Length.archive",
    "formatter": "ByteCountFormatter-Default.archive",
  ]
  /// The Apple archive in the watch's group (below its `wormhole` directory).
  public static let watchArchives = ["ranges": "NSIndexSet-OneRange.archive"]

  /// The builder holding the set: its ``DeviceSetBuilder/root`` is the `Devices` folder.
  public let builder: DeviceSetBuilder

  /// Builds the set in a new temporary directory.
  public init() {
    let builder = DeviceSetBuilder()
    self.builder = builder
    builder.plist(
      "device_set.plist",
      DeviceSetBuilder.pairs([
        (Self.activePair, Self.phone, Self.watch, true),
        (Self.inactivePair, Self.oldPhone, Self.oldWatch, false),
      ]), binary: true)
    builder.plist(
      FileName(Self.phone + "/device.plist"),
      DeviceSetBuilder.device(udid: Self.phone, name: "Ana's iPhone", type: "iPhone-15-Pro", state: 3),
      binary: true)
    builder.plist(
      FileName(Self.watch + "/device.plist"),
      DeviceSetBuilder.device(
        udid: Self.watch, name: "Ana's Watch", runtime: "watchOS-10-2", type: "Apple-Watch-Series-9-45mm",
        state: 3), binary: false)
    builder.plist(
      FileName(Self.oldPhone + "/device.plist"),
      DeviceSetBuilder.device(
        udid: Self.oldPhone, name: "iPhone SE", runtime: "iOS-16-4", type: "iPhone-SE-3rd-generation"),
      binary: false)
    builder.plist(
      DeviceSetBuilder.metadataPath(Self.phone, Self.phoneGroup), DeviceSetBuilder.metadata(Self.group),
      binary: true)
    builder.plist(
      DeviceSetBuilder.metadataPath(Self.watch, Self.watchGroup), DeviceSetBuilder.metadata(Self.group),
      binary: false)
    builder.plist(
      DeviceSetBuilder.metadataPath(Self.oldWatch, Self.oldWatchGroup),
      DeviceSetBuilder.metadata("group.com.example.old"), binary: true)
    for (identifier, file) in Self.phoneArchives {
      builder.file(
        DeviceSetBuilder.container(Self.phone, Self.phoneGroup).appending(FileName(identifier + ".archive")),
        Self.appleArchive(file))
    }
    for (identifier, file) in Self.watchArchives {
      builder.file(
        DeviceSetBuilder.container(Self.watch, Self.watchGroup).appending("wormhole").appending(
          FileName(identifier + ".archive")), Self.appleArchive(file))
    }
  }

  /// The full path of a device's group container.
  public func container(_ udid: String, _ container: FileName) -> FileName {
    builder.path(DeviceSetBuilder.container(udid, container))
  }

  /// The bytes of one of the Apple archives kept with the KeyedArchive tests.
  public static func appleArchive(_ name: String) -> [UInt8] {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("KeyedArchiveTests/Fixtures/" + name).path
    return FileManager.default.contents(atPath: path).map { Array($0) } ?? []
  }
}
