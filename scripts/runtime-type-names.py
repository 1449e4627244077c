#!/usr/bin/env python3
"""Writes Sources/ModelgenCore/Validation/RuntimeTypeNames.swift: the names of ModelgenRuntime's public
top-level types, which an entity or class of a model may not take (generated code, which imports the
runtime, would name the runtime's type, or the class would shadow it), and the names of ManagedObject's
public properties, which a modeled property may not take (a generated property would redeclare them and
not compile; methods may share a property's name in Swift). Read from the runtime's sources: `make runtime-names` writes the file, `--check` exits 1 when it
is out of date (a test runs that)."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
sources = root / "Sources" / "ModelgenRuntime"
target = root / "Sources" / "ModelgenCore" / "Validation" / "RuntimeTypeNames.swift"
# A declaration at the start of a line (top level), after attributes such as @propertyWrapper.
declaration = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:final\s+|indirect\s+)*"
    r"(?:class|struct|enum|protocol|actor|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)

names = sorted({m.group(1) for path in sorted(sources.rglob("*.swift")) for m in declaration.finditer(path.read_text())})

# ManagedObject's public properties: declarations one level inside `class ManagedObject` or an
# `extension ManagedObject` (braces counted line by line; the runtime's sources keep one declaration a line).
opening = re.compile(r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:public\s+|open\s+)?(?:final\s+)?(?:class|extension)\s+ManagedObject\b(?!\w)")
member = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:private|internal)\(set\)\s+|final\s+|override\s+|nonisolated\s+)*"
                    r"(?:var|let)\s+`?([A-Za-z_][A-Za-z0-9_]*)")
members = set()
for path in sorted(sources.rglob("*.swift")):
    depth, inside = 0, False
    for line in path.read_text().splitlines():
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line.split("//")[0])
        if depth == 0:
            inside = bool(opening.match(code))
        elif depth == 1 and inside and (found := member.match(code)):
            members.add(found.group(1))
        depth += code.count("{") - code.count("}")
members = sorted(name for name in members if not name.startswith("_"))

def swift_set(items):
    rows, row = [], "       "
    for name in items:
        item = f' "{name}",'
        if len(row) + len(item) > 116:
            rows.append(row)
            row = "       "
        row += item
    return rows + [row]

lines = ["// Made by scripts/runtime-type-names.py (make runtime-names) from Sources/ModelgenRuntime; a test",
         "// fails when it is out of date. Do not edit.",
         "",
         "/// The public top-level types of ModelgenRuntime: names an entity or class may not take.",
         "enum RuntimeTypeNames {",
         "    static let all: Set<String> = ["]
lines += swift_set(names) + ["    ]", "}", "",
         "/// The public properties of ModelgenRuntime's `ManagedObject`: names a modeled property may not take.",
         "enum RuntimeMemberNames {",
         "    static let all: Set<String> = ["]
lines += swift_set(members) + ["    ]", "}", ""]
text = "\n".join(lines)

if "--check" in sys.argv:
    if not target.exists() or target.read_text() != text:
        sys.stderr.write(f"{target.relative_to(root)} is out of date with the runtime's public types: run make runtime-names\n")
        sys.exit(1)
else:
    target.write_text(text)
    print(f"{target.relative_to(root)}: {len(names)} runtime types, {len(members)} ManagedObject properties")
