#!/usr/bin/env python3
"""Generates src/format/idna_tables.rs from the Unicode Character Database.

Usage:
  python3 src/format/gen_idna_tables.py [UCD_DIR] > src/format/idna_tables.rs
  rustfmt --edition 2024 src/format/idna_tables.rs

UCD_DIR defaults to /usr/share/unicode (Debian package `unicode-data`).
Each code point gets one u16 of properties, stored as runs (start, value):

  bits 0-2   IDNA2008 derived property (RFC 5892 section 3):
             0 PVALID, 1 CONTEXTJ, 2 CONTEXTO, 3 DISALLOWED, 4 UNASSIGNED
  bits 3-6   Bidi_Class as used by RFC 5893 (see BIDI below)
  bits 7-9   Joining_Type (see JOINING below), for the ZERO WIDTH NON-JOINER rule
  bits 10-12 Script: 1 Greek, 2 Hebrew, 3 Hiragana, 4 Katakana, 5 Han, else 0
  bit  13    Canonical_Combining_Class = Virama (9)
  bit  14    General_Category is a mark (Mn, Mc, Me)

Only PVALID and CONTEXT* code points keep bits 3-14: a label holding a
DISALLOWED or UNASSIGNED code point is rejected before any of them is read.
"""

import os
import re
import sys

UCD = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/unicode"
MAX = 0x110000

BIDI = ["L", "R", "AL", "EN", "ES", "ET", "AN", "CS", "NSM", "BN", "ON"]  # else 11
JOINING = ["U", "L", "R", "D", "T", "C"]
SCRIPTS = {"Greek": 1, "Hebrew": 2, "Hiragana": 3, "Katakana": 4, "Han": 5}


def records(name):
    with open(os.path.join(UCD, name), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = [x.strip() for x in line.split(";")]
            lo, _, hi = fields[0].partition("..")
            yield int(lo, 16), int(hi or lo, 16), fields[1:]


def table(name, default, field=0):
    out = [default] * MAX
    for lo, hi, rest in records(name):
        for cp in range(lo, hi + 1):
            out[cp] = rest[field]
    return out


def flag(name, prop):
    out = [False] * MAX
    for lo, hi, rest in records(name):
        if rest[0] == prop:
            for cp in range(lo, hi + 1):
                out[cp] = True
    return out


gc = table("extracted/DerivedGeneralCategory.txt", "Cn")
bidi = table("extracted/DerivedBidiClass.txt", "L")
joining = table("extracted/DerivedJoiningType.txt", "U")
ccc = table("extracted/DerivedCombiningClass.txt", "0")
script = table("Scripts.txt", "Unknown")
hangul = table("HangulSyllableType.txt", "NA")
blocks = table("Blocks.txt", "No_Block")
unstable = flag("DerivedNormalizationProps.txt", "Changes_When_NFKC_Casefolded")
default_ignorable = flag("DerivedCoreProperties.txt", "Default_Ignorable_Code_Point")
white_space = flag("PropList.txt", "White_Space")
noncharacter = flag("PropList.txt", "Noncharacter_Code_Point")
join_control = flag("PropList.txt", "Join_Control")

PVALID, CONTEXTJ, CONTEXTO, DISALLOWED, UNASSIGNED = range(5)

# RFC 5892 section 2.6, Exceptions (F).
EXCEPTIONS = {}
for cp in (0x00DF, 0x03C2, 0x06FD, 0x06FE, 0x0F0B, 0x3007):
    EXCEPTIONS[cp] = PVALID
for cp in [0x00B7, 0x0375, 0x05F3, 0x05F4, 0x30FB] + list(range(0x0660, 0x066A)) + list(range(0x06F0, 0x06FA)):
    EXCEPTIONS[cp] = CONTEXTO
for cp in [0x0640, 0x07FA, 0x302E, 0x302F, 0x303B] + list(range(0x3031, 0x3036)):
    EXCEPTIONS[cp] = DISALLOWED

IGNORABLE_BLOCKS = {
    "Combining Diacritical Marks for Symbols",
    "Musical Symbols",
    "Ancient Greek Musical Notation",
}
LETTER_DIGITS = {"Ll", "Lu", "Lo", "Nd", "Lm", "Mn", "Mc"}


def derived(cp):
    """RFC 5892 section 3, in its order of precedence."""
    if cp in EXCEPTIONS:
        return EXCEPTIONS[cp]
    if gc[cp] == "Cn" and not noncharacter[cp]:
        return UNASSIGNED
    if cp == 0x2D or 0x30 <= cp <= 0x39 or 0x61 <= cp <= 0x7A:
        return PVALID
    if join_control[cp]:
        return CONTEXTJ
    # Unstable (B): toNFKC(toCaseFold(toNFKC(cp))) != cp, which is the
    # Changes_When_NFKC_Casefolded property.
    if unstable[cp]:
        return DISALLOWED
    if default_ignorable[cp] or white_space[cp] or noncharacter[cp]:
        return DISALLOWED
    if blocks[cp] in IGNORABLE_BLOCKS:
        return DISALLOWED
    if hangul[cp] in ("L", "V", "T"):
        return DISALLOWED
    if gc[cp] in LETTER_DIGITS:
        return PVALID
    return DISALLOWED


def value(cp):
    cls = derived(cp)
    if cls >= DISALLOWED:
        return cls
    b = BIDI.index(bidi[cp]) if bidi[cp] in BIDI else 11
    j = JOINING.index(joining[cp])
    s = SCRIPTS.get(script[cp], 0)
    v = 1 if ccc[cp] == "9" else 0
    m = 1 if gc[cp] in ("Mn", "Mc", "Me") else 0
    return cls | b << 3 | j << 7 | s << 10 | v << 13 | m << 14


starts, values = [], []
prev = None
for cp in range(MAX):
    val = value(cp)
    if val != prev:
        starts.append(cp)
        values.append(val)
        prev = val

version = "unknown"
with open(os.path.join(UCD, "ReadMe.txt"), encoding="utf-8") as f:
    found = re.search(r"Version (\d+\.\d+\.\d+)", f.read())
    if found:
        version = found.group(1)


def rows(items, fmt, per_line):
    for i in range(0, len(items), per_line):
        print("    " + " ".join(fmt.format(x) for x in items[i : i + per_line]))


print("//! IDNA2008 and related Unicode properties, one run per change of value.")
print("//!")
print("//! GENERATED by `src/format/gen_idna_tables.py` from the Unicode Character")
print(f"//! Database, Unicode {version}; do not edit by hand. The bit layout is")
print("//! described in the script.")
print()
print("/// First code point of each run; sorted, starting at 0.")
print(f"pub(super) static STARTS: [u32; {len(starts)}] = [")
rows(starts, "0x{:X},", 10)
print("];")
print()
print("/// Property bits of each run (layout in `gen_idna_tables.py`).")
print(f"pub(super) static VALUES: [u16; {len(values)}] = [")
rows(values, "0x{:X},", 12)
print("];")
