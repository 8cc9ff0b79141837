// The themes shipped in the binary. SwiftPM embeds each `*.theme` file here as bytes
// (`resources: [.embedInCode(...)]` in Package.swift), so this directory stays their only
// source and the binary works when copied elsewhere. A new theme file needs a line in
// Package.swift and one below; TerminalThemeTests fails when they miss one.

/// The theme files shipped in the binary, by name (the file name without `.theme`).
public enum ShippedThemes {
  /// Name and UTF-8 text of every shipped theme, the default (`dark`) first.
  public static let files: [(name: String, bytes: [UInt8])] = [
    ("dark", PackageResources.dark_theme),
    ("light", PackageResources.light_theme),
    ("high-contrast", PackageResources.high_contrast_theme),
    ("colorblind", PackageResources.colorblind_theme),
  ]
}
