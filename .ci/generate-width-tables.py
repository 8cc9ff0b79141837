#!/usr/bin/env python3
"""Generates Sources/TerminalScreen/UnicodeWidthTables.swift: one table of the scalar ranges that
do not take one terminal column, each with its columns: none (general categories Mn, Me and Cf,
less the soft hyphen, which terminals draw) or two (East Asian Width W or F). A scalar that is
both takes none.

The Unicode version must be the one Swift's standard library uses (`Unicode.Scalar.Properties`,
grapheme breaking), because TerminalWidth combines these tables with the emoji properties Swift
reports; TerminalScreenTests checks the two agree. Swift 6.3 uses Unicode 17.0.0.

Two sources, the same output:
  --ucd DIR       the Unicode Character Database text files: DIR/EastAsianWidth.txt and
                  DIR/extracted/DerivedGeneralCategory.txt (or DIR/DerivedGeneralCategory.txt).
                  Debian's `unicode-data` package installs them in /usr/share/unicode (Debian 12
                  ships 15.0.0); unicode.org publishes every version under Public/VERSION/ucd/.
  (default)       the `unicodedata2` package from PyPI, built from the same files:
                    python3 -m venv /tmp/ucd && /tmp/ucd/bin/pip install unicodedata2==17.0.0
                    /tmp/ucd/bin/python .ci/generate-width-tables.py

Usage: generate-width-tables.py [--ucd DIR] [--output FILE]
"""

import argparse
import os
import re
import sys

MAX_SCALAR = 0x10FFFF
# Unlisted code points in these blocks default to W (EastAsianWidth.txt's header).
DEFAULT_WIDE = [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FFFD), (0x30000, 0x3FFFD)]
ZERO_CATEGORIES = {"Mn", "Me", "Cf"}
# Format characters that terminals draw with one column.
DRAWN_FORMAT = {0x00AD}


def ranges_of(predicate):
    """Sorted, merged (first, last) ranges of the scalars for which predicate holds."""
    out = []
    start = None
    for value in range(MAX_SCALAR + 2):
        inside = value <= MAX_SCALAR and not (0xD800 <= value <= 0xDFFF) and predicate(value)
        if inside and start is None:
            start = value
        elif not inside and start is not None:
            out.append((start, value - 1))
            start = None
    # Surrogates are never scalars: join ranges they split.
    merged = []
    for first, last in out:
        if merged and (merged[-1][1] + 1 == first or (merged[-1][1] == 0xD7FF and first == 0xE000)):
            merged[-1] = (merged[-1][0], last)
        else:
            merged.append((first, last))
    return merged


def parse_ucd_file(path):
    """(first, last, value) for each data line of a UCD property file, and its version."""
    entries = []
    version = None
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            match = re.match(r"#\s*\w+-(\d+\.\d+\.\d+)\.txt", line)
            if match and version is None:
                version = match.group(1)
            data = line.split("#", 1)[0].strip()
            if not data:
                continue
            codes, value = [part.strip() for part in data.split(";")[:2]]
            first, _, last = codes.partition("..")
            entries.append((int(first, 16), int(last or first, 16), value))
    return entries, version


def from_ucd(directory):
    widths, version = parse_ucd_file(os.path.join(directory, "EastAsianWidth.txt"))
    category_path = os.path.join(directory, "extracted", "DerivedGeneralCategory.txt")
    if not os.path.exists(category_path):
        category_path = os.path.join(directory, "DerivedGeneralCategory.txt")
    categories, category_version = parse_ucd_file(category_path)
    if category_version != version:
        sys.exit(f"EastAsianWidth.txt is {version} but DerivedGeneralCategory.txt is {category_version}")
    width = {}
    for first, last in DEFAULT_WIDE:
        for value in range(first, last + 1):
            width[value] = "W"
    for first, last, value in widths:
        for scalar in range(first, last + 1):
            width[scalar] = value
    category = {}
    for first, last, value in categories:
        for scalar in range(first, last + 1):
            category[scalar] = value
    return version, (lambda v: width.get(v, "N")), (lambda v: category.get(v, "Cn"))


def from_unicodedata2():
    try:
        import unicodedata2
    except ImportError:
        sys.exit("unicodedata2 is not installed: pip install unicodedata2==17.0.0, or pass --ucd DIR")
    return (
        unicodedata2.unidata_version,
        lambda v: unicodedata2.east_asian_width(chr(v)),
        lambda v: unicodedata2.category(chr(v)),
    )


def width_ranges(zero, wide):
    """(first, last, columns) for every scalar of the zero-width ranges (0) and of the wide ones
    (2) outside them, sorted; neighbouring ranges of the same columns are joined."""
    columns = {}
    for first, last in wide:
        for value in range(first, last + 1):
            columns[value] = 2
    for first, last in zero:
        for value in range(first, last + 1):
            columns[value] = 0
    out = []
    for value in sorted(columns):
        width = columns[value]
        if out and out[-1][1] + 1 == value and out[-1][2] == width:
            out[-1] = (out[-1][0], value, width)
        else:
            out.append((value, value, width))
    return out


def swift_array(ranges):
    lines = ["  static let widths = ScalarWidths(entries: ["]
    triples = [f"0x{first:X}, 0x{last:X}, {width}," for first, last, width in ranges]
    for index in range(0, len(triples), 4):
        lines.append("    " + " ".join(triples[index:index + 4]))
    lines.append("  ])")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ucd", help="directory of the Unicode Character Database text files")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument(
        "--output", default=os.path.join(root, "Sources", "TerminalScreen", "UnicodeWidthTables.swift"))
    arguments = parser.parse_args()
    if arguments.ucd:
        version, east_asian_width, category = from_ucd(arguments.ucd)
        source = "EastAsianWidth.txt, DerivedGeneralCategory.txt"
    else:
        version, east_asian_width, category = from_unicodedata2()
        source = "the unicodedata2 package"
    wide = ranges_of(lambda v: east_asian_width(v) in ("W", "F"))
    zero = ranges_of(lambda v: category(v) in ZERO_CATEGORIES and v not in DRAWN_FORMAT)
    ranges = width_ranges(zero, wide)
    text = f"""// Generated by .ci/generate-width-tables.py from Unicode {version} ({source}).
// Do not edit: run the script again when Swift's Unicode version changes.

/// Terminal widths of single scalars from the Unicode Character Database, version {version}.
enum UnicodeWidthTables {{
  /// The Unicode version the tables were generated from.
  static let unicodeVersion = "{version}"

  /// `first, last, columns` of every range that does not take one column: 0 for general
  /// category Mn, Me or Cf (but the soft hyphen), 2 for East Asian Width W (wide) or F
  /// (fullwidth) outside them.
{swift_array(ranges)}
}}
"""
    with open(arguments.output, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"{arguments.output}: Unicode {version}, {len(ranges)} ranges ({len(wide)} wide and {len(zero)} zero-width)")


if __name__ == "__main__":
    main()
