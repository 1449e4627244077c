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
# Runs a command, keeping its output in $output and its exit status in $status, and shows the output indented.
capture() { output=$("$@" 2>&1); status=$?; echo "$output" | sed 's/^/    /'; }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }

# SwiftPM's incremental build of a path dependency misses source files added to it since the
# last build; start an example's build afresh whenever the repository's file list changed.
sources=$(find Sources Plugins -name '*.swift' | sort | cksum)
for example in Examples/Notes Examples/Inventory Examples/Library Examples/Server; do
    stamp=$example/.build/modelgen-sources
    if [ -d "$example/.build" ] && [ "$(cat "$stamp" 2>/dev/null)" != "$sources" ]; then rm -rf "$example/.build"; fi
    mkdir -p "$example/.build" && echo "$sources" >"$stamp"
done

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

# User templates beside the model are used, and editing one reruns the generator.
templates=$package/Sources/NotesModel/modelgen-templates
mkdir -p "$templates"
printf '// Notes model, generated with a custom header.\nimport Foundation\nimport ModelgenRuntime\n' >"$templates/header.mustache"
with_templates=$(swift build --package-path "$package" 2>&1)
generated=$(find "$package/.build/plugins/outputs" -name 'Notes.generated.swift' | head -1)
if grep -q "Generating Swift for Notes.model.yaml" <<<"$with_templates" && head -1 "$generated" | grep -q "custom header"; then
    pass "a template beside the model is used and its edit reruns the generator"
else
    fail "templates beside the model"; echo "$with_templates" | tail -5
fi
rm -rf "$templates"
swift build --package-path "$package" >/dev/null 2>&1

# Inventory: a package that commits its generated code and checks it in CI.
inventory=Examples/Inventory
inventory_model=$inventory/Sources/Inventory/Inventory.model.yaml
inventory_generated=$inventory/Sources/Inventory/Generated
swift build --product modelgen >/dev/null 2>&1
modelgen=.build/debug/modelgen
inventory_backup=$(mktemp -d)
cp "$inventory_model" "$inventory_backup/model" && cp -r "$inventory_generated" "$inventory_backup/Generated"
trap 'cp "$backup" "$model"; rm -f "$backup"; cp "$inventory_backup/model" "$inventory_model"; rm -rf "$inventory_generated"; cp -r "$inventory_backup/Generated" "$inventory_generated"; rm -rf "$inventory_backup"' EXIT

output=$(swift run -q --package-path "$inventory" inventory-demo 2>&1)
echo "$output" | sed 's/^/    /'
if grep -q "low stock: ABC-0001, XYZ-0003 (reorder: true)" <<<"$output"; then
    pass "inventory-demo builds from committed generated code and runs"
else
    fail "inventory-demo output"
fi

capture swift run -q --package-path "$inventory" inventory-sync
if [ $status -eq 0 ] && grep -q "live results equal a fresh fetch: true; nothing lost: true; restock seen: true" <<<"$output" \
    && grep -q "the snapshot stream reported 129 changes inserting 520 rows" <<<"$output"; then
    pass "inventory-sync: a background importer and a second process reach the main actor's live results"
else
    fail "inventory-sync output (status $status)"
fi

if "$modelgen" generate "$inventory_model" --output "$inventory_generated" --check >/dev/null 2>&1; then
    pass "the committed generated code is up to date (--check)"
else
    fail "the committed generated code is stale"
fi

sed -i 's/      quantity: { type: int32, default: 0, min: 0 }/      quantity: { type: int32, default: 0, min: 0 }\n      note: string?/' "$inventory_model"
check=$("$modelgen" generate "$inventory_model" --output "$inventory_generated" --check 2>&1)
status=$?
if [ $status -eq 1 ] && grep -q "^+    @Managed(slot: [0-9]*) public var note: String?$" <<<"$check"; then
    pass "editing the model without regenerating fails --check with a diff"
else
    fail "--check after a model edit (status $status)"; echo "$check" | head -20
fi

if swift package --package-path "$inventory" --allow-writing-to-package-directory generate-models >/dev/null 2>&1 \
    && "$modelgen" generate "$inventory_model" --output "$inventory_generated" --check >/dev/null 2>&1; then
    pass "swift package generate-models regenerates the committed code"
else
    fail "swift package generate-models"
fi

# Library: a model written for the predicate language (BETWEEN and IN on variables, ANY … IN,
# SUBQUERY with @count, [cd], a $FETCH_SOURCE fetched property) built through the plugin; every
# template and a set of #Predicate queries give the same rows on the in-memory store and SQLite; its
# aggregate templates and its projection (first members too) give typed rows equal to the ones worked
# out by hand.
capture swift run -q --package-path Examples/Library library-check
if [ $status -eq 0 ] && grep -q "same results on both stores: true" <<<"$output" \
    && grep -q "^genreReport(minPages: 100): nature: 2 books, 1070 pages, longest 620; fiction: 2 books, 300 pages, longest 180$" <<<"$output" \
    && grep -q "^loanReport: Central (Branch): 3 open, next due in -3 days; North (Branch): 2 open, next due in -10 days$" <<<"$output" \
    && grep -q "^muchBorrowed(day, overdue: 2): Rivers$" <<<"$output" \
    && grep -q "^titled(CAFE STORIES): Café Stories, cafe stories II$" <<<"$output" \
    && grep -q "^shelfList(city: ZÜRICH): Café Stories (120 p., fiction, Central, by Ada, last due -3); .*cafe stories II (180 p., fiction, Central, by Ada, last due -)$" <<<"$output" \
    && grep -q "^#Predicate loans.contains { !returned && due < day }: Café Stories, Mountains, Rivers$" <<<"$output" \
    && ! grep -q "evaluated in memory" <<<"$output"; then
    pass "library-check: templates, aggregate templates and #Predicate queries agree on both stores, all in SQL"
else
    fail "library-check (status $status)"
fi

# Server: one shop on SQLite and on PostgreSQL (the done-when program of issue 23), and its HTTP
# server, against a throw-away PostgreSQL server (skipped, saying so, when none can be started).
server=Examples/Server
if url=$(scripts/postgres-server.sh start 2>/tmp/modelgen-pg-start.log); then
    trap 'scripts/postgres-server.sh stop; cp "$backup" "$model"; rm -f "$backup"; cp "$inventory_backup/model" "$inventory_model"; rm -rf "$inventory_generated"; cp -r "$inventory_backup/Generated" "$inventory_generated"; rm -rf "$inventory_backup"' EXIT
    if swift build --package-path "$server" >/tmp/modelgen-server-build.log 2>&1; then
        pass "Server builds (Hummingbird, the PostgreSQL trait, the build-tool plugin)"
    else
        fail "Server builds"; tail -30 /tmp/modelgen-server-build.log
    fi
    capture swift run -q --package-path "$server" shop-check /tmp/modelgen-shop-check.sqlite "$url"
    if [ $status -eq 0 ] && grep -q "same results on both stores: true" <<<"$output" \
        && grep -q "the other process's save arrived: true, and reads back: From the other process" <<<"$output"; then
        pass "shop-check: the same results on SQLite and PostgreSQL, and a second process's save arrives"
    else
        fail "shop-check (status $status)"
    fi
    # The server runs from its built binary (not `swift run`, whose build check alone can outlast
    # a fixed wait on a busy machine), and the wait ends when it answers or exits, at most 120 s.
    server_bin="$(swift build --package-path "$server" --show-bin-path)/shop-server"
    SHOP_STORE="$url?schema=shop_server" PORT=18080 "$server_bin" >/tmp/modelgen-shop-server.log 2>&1 &
    server_pid=$!
    for _ in $(seq 1 600); do
        curl -s http://127.0.0.1:18080/health >/dev/null 2>&1 && break
        kill -0 $server_pid 2>/dev/null || { echo "    shop-server exited before answering"; break; }
        sleep 0.2
    done
    created=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
        -d '{"sku": "HAM-001", "title": "Hammer", "price": 12.5, "categories": ["Tools"]}' http://127.0.0.1:18080/products)
    duplicate=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
        -d '{"sku": "HAM-001", "title": "Hammer again", "price": 1, "categories": []}' http://127.0.0.1:18080/products)
    listed=$(curl -s http://127.0.0.1:18080/categories/tools/products)
    kill $server_pid 2>/dev/null; wait $server_pid 2>/dev/null
    echo "    POST /products: $created, again: $duplicate; GET /categories/tools/products: $listed"
    if [ "$created" = 201 ] && [ "$duplicate" = 422 ] && grep -q '"sku":"HAM-001"' <<<"$listed"; then
        pass "shop-server: saves through a background context, refuses a duplicate, answers from PostgreSQL"
    else
        fail "shop-server"; tail -20 /tmp/modelgen-shop-server.log
    fi
    # The clinic (issue 39's done-when program): a model kept as four released versions
    # (Clinic.modelversions, built by the plugin), a store of version 1 migrated to 4 on both stores
    # with every row checked, and `modelgen diff` on each step, failing only on the data-losing one.
    capture swift run -q --package-path "$server" clinic-migrate "$url"
    if [ $status -eq 0 ] && grep -q "^sqlite: version 1 → 4 through 1→2, 2→3, 3→4; 5000 patients checked: every row right$" <<<"$output" \
        && grep -q "^postgres: version 1 → 4 through 1→2, 2→3, 3→4; 5000 patients checked: every row right$" <<<"$output"; then
        pass "clinic-migrate: four versions on SQLite and PostgreSQL, every row right"
    else
        fail "clinic-migrate (status $status)"
    fi
    versions=$server/Sources/ClinicModel/Clinic.modelversions
    diff_statuses=""
    for step in "1 2" "2 3" "3 4"; do
        set -- $step
        .build/debug/modelgen diff "$versions/v$1.model.yaml" "$versions/v$2.model.yaml" --fail-on data-loss >/tmp/modelgen-clinic-diff-$1.txt 2>&1
        diff_statuses="$diff_statuses $?"
    done
    if [ "$diff_statuses" = " 0 0 1" ] && grep -q "lightweight, api-break: entity Visit was renamed to Appointment" /tmp/modelgen-clinic-diff-1.txt \
        && grep -q "custom-stage.*Patient.weight" /tmp/modelgen-clinic-diff-2.txt \
        && grep -q "data-loss.*Patient.name was removed" /tmp/modelgen-clinic-diff-3.txt \
        && grep -q "custom-stage.*Patient.chartNumber" /tmp/modelgen-clinic-diff-3.txt; then
        pass "modelgen diff classifies each clinic release and fails only on the data-losing one"
    else
        fail "modelgen diff on the clinic's versions (exit statuses:$diff_statuses)"; cat /tmp/modelgen-clinic-diff-*.txt
    fi
    scripts/postgres-server.sh stop
else
    echo "SKIP Examples/Server: no PostgreSQL server could be started ($(tail -1 /tmp/modelgen-pg-start.log)); make deps-postgres installs one"
fi

echo "examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
