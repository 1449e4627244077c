#!/usr/bin/env python3
"""Writes Sources/ModelgenCore/Validation/RuntimeTypeNames.swift: the names of ModelgenRuntime's public
top-level types, which an entity or class of a model may not take (generated code, which imports the
runtime, would name the runtime's type, or the class would shadow it). Read from the runtime's sources:
`make runtime-names` writes the file, `--check` exits 1 when it is out of date (a test runs that)."""
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
lines = ["// Made by scripts/runtime-type-names.py (make runtime-names) from Sources/ModelgenRuntime; a test",
         "// fails when it is out of date. Do not edit.",
         "",
         "/// The public top-level types of ModelgenRuntime: names an entity or class may not take.",
         "enum RuntimeTypeNames {",
         "    static let all: Set<String> = ["]
row = "       "
for name in names:
    item = f' "{name}",'
    if len(row) + len(item) > 116:
        lines.append(row)
        row = "       "
    row += item
lines += [row, "    ]", "}", ""]
text = "\n".join(lines)

if "--check" in sys.argv:
    if not target.exists() or target.read_text() != text:
        sys.stderr.write(f"{target.relative_to(root)} is out of date with the runtime's public types: run make runtime-names\n")
        sys.exit(1)
else:
    target.write_text(text)
    print(f"{target.relative_to(root)}: {len(names)} runtime types")
