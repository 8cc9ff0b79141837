import WormholeVocabulary

extension DeviceSet {
  /// The set as one JSON document, as `dump --device-set DIR --json` prints it.
  ///
  /// The layout is stable: members are never renamed or removed, and absent values are `null`
  /// rather than missing. Paths are file names, so bytes: one that is valid UTF-8 is its JSON
  /// string; one that is not is its lossy text (each undecodable byte as `\x{ff}`), with its
  /// exact bytes in hexadecimal in the `…_bytes` member next to it (`null` otherwise).
  ///
  /// ```
  /// {"path","path_bytes",
  ///  "devices":[{"udid","directory","directory_bytes","name","runtime","runtime_name",
  ///              "device_type","device_type_name","state","state_code","described",
  ///              "groups":[{"identifier","path","path_bytes", …groupMembers}]}],
  ///  "pairs":[{"id","phone","watch","active","phone_present","watch_present"}],
  ///  "default_devices":[{"runtime","device_type","udid"}],
  ///  "notes":[{"path","path_bytes","kind","message"}]}
  /// ```
  ///
  /// `state` is ``DeviceState/name``, `state_code` CoreSimulator's number, `described` whether
  /// `device.plist` was read, `active` `null` when the set does not say, `kind`
  /// ``DeviceSetNote/Kind/code``.
  ///
  /// - Parameter groupMembers: more members for each group object, as names and JSON values
  ///   (for example `("mailboxes", "[…]")`), appended after `path_bytes`.
  public func json(
    groupMembers: (SimulatedDevice, ApplicationGroupContainer) -> [(name: String, json: String)] = { _, _ in
      []
    }
  ) -> String {
    var out = "{\(nameMembers("path", path)),\"devices\":["
    out += devices.map { device in
      var text = "{\"udid\":\(JSONText.string(device.udid))"
      text +=
        ",\(nameMembers("directory", device.directory))"
      text += ",\"name\":\(JSONText.string(orNull: device.name))"
      text += ",\"runtime\":\(JSONText.string(orNull: device.runtime?.identifier))"
      text += ",\"runtime_name\":\(JSONText.string(orNull: device.runtime?.displayName))"
      text += ",\"device_type\":\(JSONText.string(orNull: device.deviceType?.identifier))"
      text += ",\"device_type_name\":\(JSONText.string(orNull: device.deviceType?.displayName))"
      text += ",\"state\":\(JSONText.string(orNull: device.state?.name))"
      text += ",\"state_code\":\(device.state.map { String($0.code) } ?? "null")"
      text += ",\"described\":\(device.hasDescription),\"groups\":["
      text += device.groups.map { group in
        var member = "{\"identifier\":\(JSONText.string(group.identifier))"
        member += ",\(nameMembers("path", group.path))"
        for extra in groupMembers(device, group) { member += ",\(JSONText.string(extra.name)):\(extra.json)" }
        return member + "}"
      }.joined(separator: ",")
      return text + "]}"
    }.joined(separator: ",")
    out += "],\"pairs\":["
    out += pairs.map { pair in
      "{\"id\":\(JSONText.string(pair.id)),\"phone\":\(JSONText.string(orNull: pair.phoneUDID))"
        + ",\"watch\":\(JSONText.string(orNull: pair.watchUDID)),\"active\":\(pair.isActive.map { "\($0)" } ?? "null")"
        + ",\"phone_present\":\(pair.phone != nil),\"watch_present\":\(pair.watch != nil)}"
    }.joined(separator: ",")
    out += "],\"default_devices\":["
    out += defaultDevices.map { device in
      "{\"runtime\":\(JSONText.string(device.runtime.identifier))"
        + ",\"device_type\":\(JSONText.string(device.deviceType.identifier))"
        + ",\"udid\":\(JSONText.string(device.udid))}"
    }.joined(separator: ",")
    out += "],\"notes\":["
    out += notes.map { note in
      "{\(nameMembers("path", note.path))"
        + ",\"kind\":\(JSONText.string(note.kind.code)),\"message\":\(JSONText.string(note.kind.message))}"
    }.joined(separator: ",")
    return out + "]}"
  }
}

/// `"key":name,"key_bytes":bytes`: a file name and, when it is not UTF-8, its exact bytes
/// (``JSONText/name(_:)``, ``JSONText/nameBytes(_:)``).
private func nameMembers(_ key: String, _ name: FileName) -> String {
  "\"\(key)\":\(JSONText.name(name)),\"\(key)_bytes\":\(JSONText.nameBytes(name))"
}
