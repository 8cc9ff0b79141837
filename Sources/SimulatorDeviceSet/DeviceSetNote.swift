import ArchivedValues
import WormholeVocabulary

/// Something missing, damaged or refused in a device set: where, and what is wrong.
///
/// Reading a device set never fails. What cannot be read becomes a note, and everything else is
/// still read: a set copied from a Mac in a hurry, or written by an Xcode this reader has never
/// seen, is shown as far as it goes, with its gaps named.
public struct DeviceSetNote: Sendable, Hashable, CustomStringConvertible {
  /// The file or directory the note is about (the set's path followed by the names inside it).
  public var path: FileName
  /// What is wrong.
  public var kind: Kind

  /// What can be wrong with one piece of a device set.
  public enum Kind: Sendable, Hashable {
    /// The set has no `device_set.plist`, so it names no pairs (a set whose devices were never
    /// paired may lack one).
    case missingDeviceSetPlist
    /// A device directory has no `device.plist`: its name, runtime, type and state are unknown.
    case missingDevicePlist
    /// An application-group container has no container-manager metadata, so its group
    /// identifier is unknown and the container is left out.
    case missingContainerMetadata
    /// A file is not a readable property list; `reason` is the property-list reader's.
    case damagedPropertyList(reason: String)
    /// A property list lacks `key`, or holds something other than `expected` under it.
    case unexpectedValue(key: String, expected: String)
    /// A pair names, in `role` (`phone` or `watch`), a device the set does not hold.
    case absentPairedDevice(pair: String, role: String, udid: String)
    /// A pair's `role` device runs `runtime`, which is not that role's platform.
    case unexpectedPairedPlatform(pair: String, role: String, runtime: String)
    /// A device's `device.plist` says its UDID is `recorded`, not its directory's name.
    case mismatchedIdentifier(recorded: String)
    /// A directory or file could not be opened or read; `reason` says why.
    case unreadable(reason: String)
    /// A symbolic link, which the reader never follows inside a set (so it cannot leave the set
    /// or loop).
    case symbolicLink
    /// A file over `limit` bytes, left unread.
    case fileTooLarge(size: Int64, limit: Int)
    /// A directory with more than `limit` entries; only the first `limit` were read.
    case tooManyEntries(limit: Int)
    /// The whole set holds more than `limit` directory entries; what was not yet listed is not read.
    case tooManyEntriesInAll(limit: Int)
    /// The set's property lists hold more than `limit` bytes in all; the files not yet read are not.
    case tooManyBytesInAll(limit: Int)
    /// A name that is not valid UTF-8, where a UDID is expected; the device is still read.
    case nameNotText

    /// A stable code for the kind, as JSON shows it.
    public var code: String {
      switch self {
      case .missingDeviceSetPlist: return "missing_device_set_plist"
      case .missingDevicePlist: return "missing_device_plist"
      case .missingContainerMetadata: return "missing_container_metadata"
      case .damagedPropertyList: return "damaged_property_list"
      case .unexpectedValue: return "unexpected_value"
      case .absentPairedDevice: return "absent_paired_device"
      case .unexpectedPairedPlatform: return "unexpected_paired_platform"
      case .mismatchedIdentifier: return "mismatched_identifier"
      case .unreadable: return "unreadable"
      case .symbolicLink: return "symbolic_link"
      case .fileTooLarge: return "file_too_large"
      case .tooManyEntries: return "too_many_entries"
      case .tooManyEntriesInAll: return "too_many_entries_in_all"
      case .tooManyBytesInAll: return "too_many_bytes_in_all"
      case .nameNotText: return "name_not_text"
      }
    }

    /// The problem in words. Values from the set (keys, UDIDs, reasons) are as they are, not yet
    /// escaped for a terminal: ``DeviceSetNote/displayText`` is.
    public var message: String {
      switch self {
      case .missingDeviceSetPlist:
        return "no device_set.plist, so no pairs are known"
      case .missingDevicePlist:
        return "no device.plist, so this device's name, runtime, type and state are unknown"
      case .missingContainerMetadata:
        return "no .com.apple.mobile_container_manager.metadata.plist, "
          + "so this container's group identifier is unknown; it is left out"
      case .damagedPropertyList(let reason):
        return "not a readable property list: \(reason)"
      case .unexpectedValue(let key, let expected):
        return "\(key) is missing or is not \(expected)"
      case .absentPairedDevice(let pair, let role, let udid):
        return "pair \(pair) names \(udid) as its \(role), but the set holds no such device"
      case .unexpectedPairedPlatform(let pair, let role, let runtime):
        return "pair \(pair) has as its \(role) a device running \(runtime)"
      case .mismatchedIdentifier(let recorded):
        return
          "device.plist gives the UDID \(recorded), not the directory's name; the directory's name is used"
      case .unreadable(let reason):
        return "could not be read: \(reason)"
      case .symbolicLink:
        return "a symbolic link, not followed (nothing outside the set is read)"
      case .fileTooLarge(let size, let limit):
        return "\(size) bytes, more than the \(limit) read from one file; left unread"
      case .tooManyEntries(let limit):
        return "more than \(limit) entries; only the first \(limit) were read"
      case .tooManyEntriesInAll(let limit):
        return "the set holds more than \(limit) entries in all; from here on, nothing more was read"
      case .tooManyBytesInAll(let limit):
        return "the set's property lists hold more than \(limit) bytes in all; "
          + "from here on, no more files were read"
      case .nameNotText:
        return "the name is not valid UTF-8, so it is no UDID; the device is read under its escaped name"
      }
    }
  }

  /// `path: message`, unescaped (see ``displayText`` for a terminal).
  public var description: String { path.lossyText + ": " + kind.message }

  /// `path: message` for one line of a terminal: the path as a quoted field when it needs it, and
  /// controls, line breaks and bidirectional overrides in the message escaped.
  public var displayText: String { path.displayField + ": " + DisplayText.escaped(kind.message) }
}
