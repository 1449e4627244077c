#!/usr/bin/env bash
# Builds and runs the example packages as a user would, and checks the plugin's behaviour:
# an unchanged model does not rerun the generator, a changed one does, and a broken model
# fails `swift build` with a diagnostic pointing into the model file.
set -uo pipefail
cd "$(dirname "$0")/.."
package=Examples/Notes
model=$package/Sources/NotesModel/Notes.model.yaml
passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }

backup=$(mktemp)
cp "$model" "$backup"
trap 'cp "$backup" "$model"; rm -f "$backup"' EXIT

if swift build --package-path "$package" >/tmp/modelgen-example-build.log 2>&1; then
    pass "Notes builds with the plugin"
else
    fail "Notes builds with the plugin"; tail -30 /tmp/modelgen-example-build.log
fi

output=$(swift run -q --package-path "$package" notes-demo 2>&1)
echo "$output" | sed 's/^/    /'
if grep -q "saved 2 notes in 'Ideas'" <<<"$output" && grep -q "pinned: Try modelgen on Linux" <<<"$output" \
    && grep -q "refused: Note.pinned .*TODO notes must be pinned" <<<"$output"; then
    pass "notes-demo inserts, saves, fetches and refuses an invalid note"
else
    fail "notes-demo output"
fi

again=$(swift build --package-path "$package" 2>&1)
if grep -q "Generating Swift for Notes.model.yaml" <<<"$again"; then
    fail "an unchanged model reran the generator"; echo "$again" | tail -5
else
    pass "an unchanged model does not rerun the generator"
fi

printf '\n# edited\n' >>"$model"
changed=$(swift build --package-path "$package" 2>&1)
if grep -q "Generating Swift for Notes.model.yaml" <<<"$changed"; then
    pass "a changed model reruns the generator"
else
    fail "a changed model did not rerun the generator"; echo "$changed" | tail -5
fi

sed -i 's/toMany: true, ordered: true/tomany: true, ordered: true/' "$model"
broken=$(swift build --package-path "$package" 2>&1)
status=$?
if [ $status -ne 0 ] && grep -Eq "Notes\.model\.yaml:11:[0-9]+: error: unknown key 'tomany'" <<<"$broken"; then
    pass "a broken model fails the build at its line and column"
else
    fail "a broken model (status $status)"; echo "$broken" | tail -10
fi

cp "$backup" "$model"
if swift build --package-path "$package" >/dev/null 2>&1; then
    pass "the fixed model builds again"
else
    fail "the fixed model builds again"
fi

echo "examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
