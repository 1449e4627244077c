#!/usr/bin/env python3
"""Fails when a public symbol of the library modules has no doc comment.

usage: doc-coverage.py SYMBOLGRAPH_DIR

Reads the symbol graphs `swift package dump-symbol-graph --minimum-access-level public
--skip-synthesized-members --include-spi-symbols` writes (the compiler's own list of public and SPI
declarations, so nothing is missed the way a text search would) and prints one
`FILE:LINE: error: public KIND NAME has no doc comment` per undocumented declaration of the
repository's sources, then a line of counts per module. Exit status 1 when any is missing.
"""
import glob, json, os, sys

MODULES = ["ModelgenRuntime", "ModelgenCore", "ModelgenPredicate", "ModelgenPostgres"]

def main():
    if len(sys.argv) != 2:
        print(__doc__); sys.exit(2)
    directory = sys.argv[1]
    sources = os.path.join(os.getcwd(), "Sources") + "/"
    missing_total = 0
    for module in MODULES:
        files = glob.glob(os.path.join(directory, module + ".symbols.json")) + glob.glob(os.path.join(directory, module + "@*.symbols.json"))
        if not files:
            continue
        total, missing = 0, []
        for path in files:
            for symbol in json.load(open(path))["symbols"]:
                if symbol.get("accessLevel") not in ("public", "open") or symbol["kind"]["identifier"] == "swift.extension":
                    continue
                location = symbol.get("location", {})
                uri = location.get("uri", "").replace("file://", "")
                if not uri.startswith(sources):   # members inherited from other modules
                    continue
                total += 1
                if not symbol.get("docComment"):
                    line = location.get("position", {}).get("line", 0) + 1
                    kind = symbol["kind"]["identifier"].replace("swift.", "")
                    missing.append(f"{os.path.relpath(uri)}:{line}: error: public {kind} {'.'.join(symbol['pathComponents'])} has no doc comment")
        for entry in sorted(missing):
            print(entry)
        print(f"{module}: {total - len(missing)} of {total} public declarations documented")
        missing_total += len(missing)
    if missing_total:
        print(f"error: {missing_total} public declarations have no doc comment", file=sys.stderr)
        sys.exit(1)

main()
