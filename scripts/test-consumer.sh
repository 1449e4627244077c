#!/usr/bin/env bash
# modelgen as another package's dependency, tried as a user would, outside the repository:
#
# 1. `modelgen init` in an empty folder writes a package (the plugin wired in, modelgen by path);
#    it builds and runs, printing what its main.swift saved and fetched.
# 2. A package that depends on modelgen by version (`from:` the current version, through a git URL
#    of a copy of this work tree tagged with it) beside another dependency that pins Yams to the
#    lowest version modelgen accepts (5.0.1): it resolves to that Yams, builds the plugin's
#    generator against it, and runs; its resolved graph holds nothing of modelgen's own tooling
#    (swift-docc-plugin) nor the PostgreSQL trait's dependencies.
#
# Usage: scripts/test-consumer.sh [MODELGEN]   (default: .build/debug/modelgen, built if missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
modelgen=${1:-$root/.build/debug/modelgen}
[ -x "$modelgen" ] || (cd "$root" && swift build --product modelgen)
modelgen=$(cd "$(dirname "$modelgen")" && pwd)/$(basename "$modelgen")
version=$("$modelgen" --version)
work=$(mktemp -d -t modelgen-consumer.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "error: consumer test: $*" >&2; exit 1; }

expect_output() { # FILE: what the starter program prints
    grep -qx 'long books: \["The Dispossessed"\]' "$1" || fail "the starter did not fetch its long book: $(cat "$1")"
    grep -qx 'short books: \["The Lathe of Heaven"\]' "$1" || fail "the starter's template fetch: $(cat "$1")"
    grep -qx 'The Dispossessed was borrowed' "$1" || fail "the starter's observation did not fire: $(cat "$1")"
    grep -qx 'borrowed: 1' "$1" || fail "the starter's save: $(cat "$1")"
}

echo "== 1. modelgen init in an empty folder, built and run"
mkdir "$work/Starter"
(cd "$work/Starter" && "$modelgen" init --modelgen-path "$root") >/dev/null
(cd "$work/Starter" && swift build -q 2>&1 | grep -v '^\[' || true)
(cd "$work/Starter" && swift run -q Starter) >"$work/starter.out" || fail "the package modelgen init wrote does not run: $(cat "$work/starter.out")"
expect_output "$work/starter.out"
echo "ok: modelgen init's package builds and runs"

echo "== 2. a package depending on modelgen $version beside a dependency pinning Yams 5.0.1"
# This work tree as a released package: a git repository tagged with the current version.
mkdir "$work/modelgen"
(cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 -I{} cp --parents {} "$work/modelgen/") 2>/dev/null \
    || (cd "$root" && git ls-files -co --exclude-standard | while read -r f; do [ -e "$f" ] && cp --parents "$f" "$work/modelgen/"; done)
(cd "$work/modelgen" && git init -q && git add -A && git -c user.name=test -c user.email=test@invalid commit -qm release && git tag "$version")

mkdir -p "$work/LegacyYAMLTool/Sources/LegacyYAMLTool"
cat >"$work/LegacyYAMLTool/Package.swift" <<'EOF'
// swift-tools-version:5.9
import PackageDescription

// Another dependency of the app, which needs Yams 5 exactly (as tools built on Yams 5 do).
let package = Package(
    name: "LegacyYAMLTool",
    products: [.library(name: "LegacyYAMLTool", targets: ["LegacyYAMLTool"])],
    dependencies: [.package(url: "https://github.com/jpsim/Yams", exact: "5.0.1")],
    targets: [.target(name: "LegacyYAMLTool", dependencies: ["Yams"])]
)
EOF
cat >"$work/LegacyYAMLTool/Sources/LegacyYAMLTool/Settings.swift" <<'EOF'
import Yams

/// The number of keys of a YAML mapping, read with Yams 5.
public func settingCount(_ yaml: String) throws -> Int {
    (try Yams.load(yaml: yaml) as? [String: Any])?.count ?? 0
}
EOF

mkdir "$work/Shelf"
(cd "$work/Shelf" && "$modelgen" init --modelgen-url "file://$work/modelgen" --modelgen-version "$version") >/dev/null
python3 - "$work/Shelf" <<'EOF'
import sys, pathlib
package = pathlib.Path(sys.argv[1])
manifest = (package / "Package.swift").read_text()
manifest = manifest.replace('    dependencies: [\n', '    dependencies: [\n        .package(path: "../LegacyYAMLTool"),\n', 1)
manifest = manifest.replace('dependencies: [.product(name: "ModelgenRuntime", package: "modelgen")]',
                            'dependencies: [.product(name: "ModelgenRuntime", package: "modelgen"), "LegacyYAMLTool"]')
assert manifest.count("LegacyYAMLTool") == 2, manifest
(package / "Package.swift").write_text(manifest)
main = package / "Sources" / "Shelf" / "main.swift"
main.write_text(main.read_text().replace("import Foundation\n", "import Foundation\nimport LegacyYAMLTool\n", 1)
                + 'print("settings: \\(try settingCount("a: 1\\nb: 2"))")\n')
EOF
(cd "$work/Shelf" && swift package resolve -q) || fail "the package does not resolve beside Yams 5.0.1"
resolved=$work/Shelf/Package.resolved
grep -A6 '"identity" : "yams"' "$resolved" | grep -q '"version" : "5.0.1"' || fail "Yams did not resolve to 5.0.1: $(cat "$resolved")"
grep -q '"identity" : "modelgen"' "$resolved" || fail "modelgen is not in the resolved graph"
for tooling in swift-docc-plugin postgres-nio swift-nio; do
    ! grep -q "\"identity\" : \"$tooling\"" "$resolved" || fail "$tooling is in a consumer's resolved graph: $(cat "$resolved")"
done
(cd "$work/Shelf" && swift build -q 2>&1 | grep -v '^\[' || true)
(cd "$work/Shelf" && swift run -q Shelf) >"$work/shelf.out" || fail "the package beside Yams 5.0.1 does not run: $(cat "$work/shelf.out")"
expect_output "$work/shelf.out"
grep -qx 'settings: 2' "$work/shelf.out" || fail "the Yams 5 dependency's code did not run: $(cat "$work/shelf.out")"
echo "ok: resolved with Yams 5.0.1 and modelgen $version from a git URL; built (the plugin's generator on Yams 5) and ran"
