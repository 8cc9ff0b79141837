#!/usr/bin/env python3
"""Writes the device-set fixtures next to this script. Run once when authoring; the bytes are
committed, so the tests never depend on Python. Layouts follow CoreSimulator's as described in
the SimulatorDeviceSet README section; UDIDs are made up."""
import datetime
import os
import plistlib
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))

PHONE_A = "0A1B2C3D-4E5F-4061-8273-94A5B6C7D8E9"
WATCH_A = "1B2C3D4E-5F60-4172-8384-A5B6C7D8E9FA"
PHONE_B = "2C3D4E5F-6071-4283-9495-B6C7D8E9FA0B"
WATCH_B = "3D4E5F60-7182-4394-A5A6-C7D8E9FA0B1C"
TABLET = "4E5F6071-8293-44A5-B6B7-D8E9FA0B1C2D"
PAIR_1 = "5F607182-93A4-45B6-87C8-E9FA0B1C2D3E"
PAIR_2 = "60718293-A4B5-46C7-98D9-FA0B1C2D3E4F"
GROUP_A = "71829304-B5C6-47D8-A9EA-0B1C2D3E4F50"
GROUP_A2 = "82930415-C6D7-48E9-BAFB-1C2D3E4F5061"
GROUP_W = "93041526-D7E8-49FA-CB0C-2D3E4F506172"
GROUP_WB = "A4152637-E8F9-4A0B-DC1D-3E4F50617283"

RUNTIME = "com.apple.CoreSimulator.SimRuntime."
TYPE = "com.apple.CoreSimulator.SimDeviceType."


def write(path, value, binary):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        plistlib.dump(value, out, fmt=plistlib.FMT_BINARY if binary else plistlib.FMT_XML, sort_keys=True)


def device(udid, name, runtime, kind, state):
    return {
        "UDID": udid, "deviceType": TYPE + kind, "isDeleted": False, "isEphemeral": False,
        "lastBootedAt": datetime.datetime(2026, 11, 30, 17, 4, 12), "name": name,
        "runtime": RUNTIME + runtime, "runtimePolicy": "exact", "state": state,
    }


def metadata(identifier, uuid):
    return {
        "MCMMetadataActiveDPClass": 0, "MCMMetadataContentClass": 7,
        "MCMMetadataIdentifier": identifier, "MCMMetadataInfo": {},
        "MCMMetadataSchemaVersion": 1, "MCMMetadataUUID": uuid, "MCMMetadataVersion": 6,
    }


def group(root, udid, uuid, identifier, binary):
    container = os.path.join(root, udid, "data", "Containers", "Shared", "AppGroup", uuid)
    write(os.path.join(container, ".com.apple.mobile_container_manager.metadata.plist"),
          metadata(identifier, uuid), binary)
    return container


def two_pairs():
    root = os.path.join(HERE, "TwoPairs", "Devices")
    shutil.rmtree(os.path.dirname(root), ignore_errors=True)
    write(os.path.join(root, "device_set.plist"), {
        "DefaultDevices": {
            RUNTIME + "iOS-17-2": {TYPE + "iPhone-15-Pro": PHONE_A, TYPE + "iPad-Pro--11-inch---3rd-generation-": TABLET},
            "version": 0,
        },
        "DevicePairs": {
            PAIR_1: {"active": True, "companion": PHONE_A, "gizmo": WATCH_A},
            PAIR_2: {"active": False, "companion": PHONE_B, "gizmo": WATCH_B},
        },
    }, binary=False)
    write(os.path.join(root, ".default_created.plist"), {RUNTIME + "iOS-17-2": {}}, binary=False)
    # The booted phone: a binary device.plist, two groups (binary and XML metadata), a wormhole.
    write(os.path.join(root, PHONE_A, "device.plist"),
          device(PHONE_A, "Ana's iPhone", "iOS-17-2", "iPhone-15-Pro", 3), binary=True)
    container = group(root, PHONE_A, GROUP_A, "group.com.example.app", binary=True)
    os.makedirs(os.path.join(container, "wormhole"), exist_ok=True)
    with open(os.path.join(container, "wormhole", "README"), "w") as out:
        out.write("MMWormhole's optional directory inside the group container.\n")
    group(root, PHONE_A, GROUP_A2, "group.com.example.shared", binary=False)
    # Its watch: an XML device.plist, one group.
    write(os.path.join(root, WATCH_A, "device.plist"),
          device(WATCH_A, "Ana's Watch", "watchOS-10-2", "Apple-Watch-Series-9-45mm", 1), binary=False)
    group(root, WATCH_A, GROUP_W, "group.com.example.app", binary=True)
    # A phone that never booted (no data directory).
    write(os.path.join(root, PHONE_B, "device.plist"),
          device(PHONE_B, "Old iPhone", "iOS-16-4", "iPhone-14", 1), binary=False)
    # A watch whose device.plist is missing; its group container is still there.
    group(root, WATCH_B, GROUP_WB, "group.com.example.app", binary=False)
    # An unpaired tablet, being created.
    write(os.path.join(root, TABLET, "device.plist"),
          device(TABLET, "iPad Pro (11-inch) (3rd generation)", "iOS-17-2",
                 "iPad-Pro--11-inch---3rd-generation-", 0), binary=False)


def damaged():
    root = os.path.join(HERE, "Damaged", "Devices")
    shutil.rmtree(os.path.dirname(root), ignore_errors=True)
    # device_set.plist: a binary property list cut short.
    good = plistlib.dumps({"DevicePairs": {PAIR_1: {"companion": PHONE_A, "gizmo": WATCH_A}}},
                          fmt=plistlib.FMT_BINARY)
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "device_set.plist"), "wb") as out:
        out.write(good[: len(good) - 20])
    # A device.plist that is not a property list at all.
    os.makedirs(os.path.join(root, PHONE_A), exist_ok=True)
    with open(os.path.join(root, PHONE_A, "device.plist"), "wb") as out:
        out.write(b"\x00\x01not a plist")
    # A device.plist with wrong types: state as a string, no runtime, another UDID.
    write(os.path.join(root, WATCH_A, "device.plist"), {
        "UDID": PHONE_B, "deviceType": TYPE + "Apple-Watch-Series-9-45mm", "name": "Half a Watch",
        "state": "Booted",
    }, binary=False)
    # A container without metadata, and one whose metadata has no identifier.
    bare = os.path.join(root, WATCH_A, "data", "Containers", "Shared", "AppGroup", GROUP_W, "Library")
    os.makedirs(bare, exist_ok=True)
    with open(os.path.join(bare, "note.txt"), "w") as out:
        out.write("a container whose metadata was not copied\n")
    write(os.path.join(root, WATCH_A, "data", "Containers", "Shared", "AppGroup", GROUP_WB,
                       ".com.apple.mobile_container_manager.metadata.plist"),
          {"MCMMetadataContentClass": 7, "MCMMetadataUUID": GROUP_WB}, binary=True)


two_pairs()
damaged()
