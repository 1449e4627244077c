#!/usr/bin/env bash
# The libFuzzer campaigns (Fuzz/): builds every target with -sanitize=fuzzer,address, seeds a corpus per
# target from the repository's models, predicates, XML, configs and templates (and ../shared), runs
# each target for SECONDS seconds (or only TARGET), and prints one line of figures per target.
# `make fuzz`: 30 s each (CI); `make fuzz-long TARGET=fuzz-model SECONDS=3600`: a campaign. The corpus
# in .build-fuzz/corpus/<target> carries over between runs; crashes stop the run with the input saved
# in .build-fuzz/crashes/<target>/ (turn each into a regression test from the minimized input).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${SECONDS_PER_TARGET:-30}
seed=${FUZZ_SEED:+-seed=$FUZZ_SEED}   # make fuzz fixes it, so a CI run is repeatable
targets=${TARGET:-fuzz-model fuzz-predicate fuzz-xml fuzz-config fuzz-template fuzz-sqlite}
work=.build-fuzz
shared=${SHARED:-../shared}

mkdir -p "$work"
# SwiftPM's incremental build of a path dependency misses source files added to it since the last
# build: start the build afresh whenever the repository's file list changed, keeping the corpus, the
# crashes and the logs and CPU figures of campaigns that may still be running on the old binaries.
sources=$(find Sources Fuzz/Sources -name '*.swift' -o -name '*.c' -o -name '*.h' | sort | cksum)
if [ "$(cat "$work/sources-stamp" 2>/dev/null)" != "$sources" ]; then
    find "$work" -mindepth 1 -maxdepth 1 ! -name corpus ! -name crashes ! -name '*.log' ! -name '*.cpu' -exec rm -rf {} +
    echo "$sources" >"$work/sources-stamp"
fi
# lld: gold fails to link the sanitized targets (an internal error in its DWARF reader).
swift build --package-path Fuzz -c release --scratch-path "$work" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld >"$work/build.log" 2>&1 \
    || { tail -40 "$work/build.log"; echo "error: the fuzz targets do not build (full log: $work/build.log)" >&2; exit 1; }
bin=$(swift build --package-path Fuzz -c release --scratch-path "$work" --show-bin-path)

seed() {  # seed TARGET FILES…: copies files into the target's corpus (names by content, so reseeding adds nothing twice)
    local dir="$work/corpus/$1"; shift
    mkdir -p "$dir"
    for file in "$@"; do
        [ -f "$file" ] || continue
        cp "$file" "$dir/seed-$(cksum <"$file" | cut -d' ' -f1)"
    done
}
seed_text() {  # seed_text TARGET: one seed per line of stdin
    local dir="$work/corpus/$1"
    mkdir -p "$dir"
    while IFS= read -r line; do
        [ -n "$line" ] && printf '%s' "$line" >"$dir/seed-$(printf '%s' "$line" | cksum | cut -d' ' -f1)"
    done
}

models=$(find Examples Tests/Models "$shared/models" -name '*.model.yaml' 2>/dev/null | sort)
seed fuzz-model $models Tests/Fixtures/Fuzz/model-*
predicates() {
    grep -rhoE "predicate: *'[^']*'" $models Tests/Models 2>/dev/null | sed -E "s/predicate: *'(.*)'/\1/"
    grep -rhoE 'predicateString="[^"]*"' "$shared/realworld" Tests/Fixtures/CoreDataModels 2>/dev/null \
        | sed -E 's/predicateString="(.*)"/\1/; s/&gt;/>/g; s/&lt;/</g; s/&quot;/"/g; s/&amp;/\&/g'
    printf '%s\n' "SUBQUERY(tags, \$t, \$t.name BEGINSWITH[cd] 'a').@count > 1" "pages BETWEEN {\$LO, \$HI} AND title IN {'a', \"b\"}" \
        "published > CAST(733244400, \"NSDate\") OR NOT (rating <= 2.5e1)" "FUNCTION(SELF, 'daysSince:', published) > \$DAYS" \
        "ANY tags.books.shelf.label LIKE[c] 'x*?' && available == YES || shelf == nil" "tags.@avg.name > 1 AND tags.@count == \$N"
}
predicates | seed_text fuzz-predicate
seed fuzz-xml $(find "$shared/realworld" Tests/Fixtures/CoreDataModels -name '*.xml' 2>/dev/null | sort) Tests/Fixtures/Fuzz/xml-*
seed fuzz-config $(find Examples Tests -name 'modelgen*.y*ml' -not -path '*/.build/*' 2>/dev/null | sort)
printf '%s\n' "models:" "  - { path: A.model.yaml, output: Gen, access: public, singleFile: true }" "defaults: { propertyStyle: accessors }" \
    | tr '\n' '\r' | sed 's/\r/\n/g' >"$work/config-seed.yml"
seed fuzz-config "$work/config-seed.yml" Tests/Fixtures/Fuzz/config-*
seed fuzz-template Templates/*.mustache Tests/Fixtures/Fuzz/template-*
if [ ! -f "$work/sqlite-seed.sqlite" ]; then
    FUZZ_SQLITE_SEED="$PWD/$work/sqlite-seed.sqlite" "$bin/fuzz-sqlite" >/dev/null 2>&1 || true
fi
seed fuzz-sqlite "$work/sqlite-seed.sqlite"

status=0
for target in $targets; do
    mkdir -p "$work/crashes/$target"
    log="$work/$target.log"
    # LeakSanitizer is off: the Swift runtime and once-initialized globals keep memory on purpose.
    # GNU time records the target's CPU time (the campaigns' goal is counted in CPU, not wall, time).
    rm -f "$work/$target.cpu"; timer=()
    [ -x /usr/bin/time ] && timer=(/usr/bin/time -f '%U %S' -o "$work/$target.cpu")
    # FoundationXML's XMLParser leaks about 150 bytes (more under ASan) on every document it finds
    # malformed (measured outside the fuzzer: docs/reliability.md), so fuzz-xml's memory grows with
    # its executions, 3 GB in an hour: it gets a process limit of 12 GB; every target keeps a 4 GB
    # limit on any one allocation (libFuzzer's -malloc_limit_mb), the bound of a runaway input.
    rss_limit=4096
    [ "$target" = fuzz-xml ] && rss_limit=12288
    if ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" "${timer[@]}" "$bin/$target" "$work/corpus/$target" $seed -max_total_time="$seconds" -timeout=20 -rss_limit_mb=$rss_limit -malloc_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="$work/crashes/$target/" >"$log" 2>&1; then
        result=ok
    else
        result=FAILED; status=1
    fi
    runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
    corpus=$(ls "$work/corpus/$target" | wc -l)
    cpu=$(awk '/^[0-9.]+ [0-9.]+$/ { printf "%.0f", $1 + $2 }' "$work/$target.cpu" 2>/dev/null)
    printf '%-15s %-6s %4ss wall %5ss CPU  %10s runs  %s  corpus %s  (%s)\n' "$target" "$result" "$seconds" "${cpu:-?}" "$runs" "$cov" "$corpus" "$(date -u +%Y-%m-%d)"
    if [ $result = FAILED ]; then
        grep -E 'fuzz property violated|ERROR: (AddressSanitizer|libFuzzer)|Fatal error|Test unit written' "$log" | head -5
        tail -30 "$log"
    fi
done
exit $status
