# modelgen: the two commands a newcomer needs are `make example` and `make test`.
SWIFT   ?= swift
PREFIX  ?= /usr/local
SHARED  ?= ../shared
PYTHON  ?= python3
EXAMPLES = Examples/Blog/Blog.model.yaml Examples/Graphics/Graphics.model.yaml Examples/Staff/Staff.model.yaml

.PHONY: history consumer migration-kill load doc-coverage docs all deps deps-postgres build example examples test test-postgres tsan fuzz fuzz-long install bench bench-postgres clean templates reference runtime-names

all: build

# System packages the tests need (Debian/Ubuntu), installed only when missing: as root with apt-get
# and pip, otherwise the command to run is printed. `make example` needs none of them.
APT_INSTALL = if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq
APT_ELSE = >/dev/null; else echo "error: missing $$what: run sudo apt-get install $$package" >&2; exit 1; fi
deps:
	@command -v $(PYTHON) >/dev/null || { what=python3 package=python3; $(APT_INSTALL) python3 $(APT_ELSE); }
	@[ -f /usr/include/sqlite3.h ] || [ "$$(uname)" = Darwin ] || { what="SQLite's headers (the runtime's SQLite store)" package=libsqlite3-dev; $(APT_INSTALL) libsqlite3-dev $(APT_ELSE); }
	@command -v dot >/dev/null || { what="graphviz (tests render modelgen graph --format dot)" package=graphviz; $(APT_INSTALL) graphviz $(APT_ELSE); }
	@command -v patch >/dev/null || { what="patch (tests apply the diffs of modelgen generate --check)" package=patch; $(APT_INSTALL) patch $(APT_ELSE); }
	@$(PYTHON) -c "import jsonschema, yaml" 2>/dev/null || { echo "installing jsonschema and pyyaml (scripts/check-schemas.py)"; $(PYTHON) -m pip install -q jsonschema pyyaml; }

# The PostgreSQL server for test-postgres (Debian's postgresql: initdb, pg_ctl, postgres).
deps-postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || { echo "installing postgresql (the PostgreSQL store's tests)"; apt-get update -qq && apt-get install -y -qq postgresql >/dev/null; }
	@command -v curl >/dev/null || { echo "installing curl (the example server's check)"; apt-get update -qq && apt-get install -y -qq curl >/dev/null; }
	@command -v openssl >/dev/null || { echo "installing openssl (the test server's TLS certificate)"; apt-get update -qq && apt-get install -y -qq openssl >/dev/null; }

build: deps
	$(SWIFT) build

# Quick start: validate the example models and generate the Blog model's Swift code (builds only the
# modelgen command, which needs nothing beyond Swift).
example:
	$(SWIFT) run -q modelgen validate $(EXAMPLES)
	@echo "example models are valid: $(EXAMPLES)"
	$(SWIFT) run -q modelgen generate Examples/Blog/Blog.model.yaml --output .build/example-output/Blog
	@echo "generated Swift for Examples/Blog/Blog.model.yaml in .build/example-output/Blog:"
	@ls .build/example-output/Blog

# The example packages, built and run as a user would (the build-tool plugin end to end).
examples: deps-postgres
	bash scripts/test-examples.sh

# Unit, golden and CLI tests, then the shared invalid-model corpus against the built binary.
test: deps
	$(SWIFT) build --build-tests
	@# The tests' temporary files (stores, crash-test databases, generated packages) go to a directory of
	@# their own, removed afterwards whatever the outcome: repeated runs no longer fill /tmp. (Others may
	@# enter it: a test runs its helper as nobody.)
	@scratch=$$(mktemp -d -t modelgen-tests.XXXXXX); chmod 755 "$$scratch"; TMPDIR=$$scratch $(SWIFT) test --skip-build; status=$$?; rm -rf "$$scratch"; exit $$status
	@# DOC_COVERAGE=0 skips it (scripts/test-fresh-clone.sh: CI's first make test already checked it, and it builds NIO).
	@if [ "$${DOC_COVERAGE:-1}" != 0 ]; then $(MAKE) --no-print-directory doc-coverage; fi
	@if [ -d "$(SHARED)/models/invalid" ]; then \
		$(PYTHON) "$(SHARED)/tools/check-invalid-models.py" .build/debug/modelgen "$(SHARED)/models/invalid"; \
	elif [ "$${CI:-}" = "true" ]; then \
		echo "error: $(SHARED)/models/invalid is missing; CI needs the shared corpus" >&2; exit 1; \
	else \
		echo "note: $(SHARED) not found beside the repository; skipped the shared invalid-model corpus"; \
	fi
	@# The JSON Schemas of Schemas/ against every model modelgen accepts, with a JSON Schema validator.
	$(PYTHON) scripts/check-schemas.py .build/debug/modelgen $$([ -d "$(SHARED)/models" ] && echo "$(SHARED)")

# modelgen as another package's dependency, outside the repository: modelgen init's package built and
# run, and a package beside a dependency pinning Yams to modelgen's lowest version (scripts/test-consumer.sh).
consumer: deps
	$(SWIFT) build --product modelgen
	bash scripts/test-consumer.sh .build/debug/modelgen

# The PostgreSQL store (package trait PostgreSQL: PostgresNIO is fetched and built only here, in
# POSTGRES_BUILD) against a throw-away PostgreSQL server started on 127.0.0.1 and stopped after.
# POSTGRES_BUILD is a build directory of its own, so that switching between the two builds rebuilds
# nothing; .ci/run passes .build, where make test's doc-coverage check has already built PostgresNIO.
POSTGRES_BUILD ?= .build-postgres
# Without PostgreSQL's server binaries (and outside CI) the tests run without a server and report
# themselves skipped, saying why; CI installs the server and fails without one.
test-postgres: deps
	@$(MAKE) --no-print-directory deps-postgres || [ "$${CI:-}" != true ] || exit 1
	$(SWIFT) build --build-tests --traits PostgreSQL --scratch-path $(POSTGRES_BUILD)
	@url=$$(scripts/postgres-server.sh start); status=$$?; \
	if [ $$status = 3 ] && [ "$${CI:-}" != true ]; then \
		echo "note: no PostgreSQL server binaries (Debian's postgresql): the PostgreSQL tests run without a server and report themselves skipped"; \
		exec $(SWIFT) test --skip-build --traits PostgreSQL --scratch-path $(POSTGRES_BUILD) --filter ModelgenPostgresTests; \
	fi; \
	[ $$status = 0 ] || exit 1; \
	scratch=$$(mktemp -d -t modelgen-tests.XXXXXX); chmod 755 "$$scratch"; \
	trap 'scripts/postgres-server.sh stop; rm -rf "'"$$scratch"'"' EXIT; \
	echo "PostgreSQL test server: $$url"; \
	MODELGEN_POSTGRES_URL=$$url MODELGEN_POSTGRES_CA=$$(scripts/postgres-server.sh ca) TMPDIR=$$scratch \
		$(SWIFT) test --skip-build --traits PostgreSQL --scratch-path $(POSTGRES_BUILD) --filter ModelgenPostgresTests

# The concurrency stress (importer actors, a second process, live results on the main context) built
# with ThreadSanitizer: fails on a data race TSan reports or on a lost or diverging save.
# libFuzzer targets for every input surface (Fuzz/, scripts/fuzz.sh): a 30-second smoke each with a
# fixed seed (CI), or a campaign: make fuzz-long TARGET=fuzz-model SECONDS=3600 (figures: docs/reliability.md).
fuzz: deps
	FUZZ_SEED=1 SECONDS_PER_TARGET=30 bash scripts/fuzz.sh

TARGET ?=
SECONDS ?= 3600
fuzz-long: deps
	TARGET="$(TARGET)" SECONDS_PER_TARGET=$(SECONDS) bash scripts/fuzz.sh

tsan: deps
	$(SWIFT) build --sanitize=thread --product modelgen-store-stress --scratch-path .build-tsan
	$(SWIFT) build --sanitize=thread --product modelgen --scratch-path .build-tsan
	$(SWIFT) build --sanitize=thread --product modelgen-bench --scratch-path .build-tsan
	@# The generator's threads: entities read while composing (files over 64 KB), views and files rendered side by side.
	@.build-tsan/debug/modelgen-bench --write-model 1000 >.build-tsan/synthetic.model.yaml
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" .build-tsan/debug/modelgen validate .build-tsan/synthetic.model.yaml
	@# Into a new directory (written side by side into a hidden sibling, the cache's digests side by side),
	@# then again into it without the cache (files compared and written one by one, side by side).
	@rm -rf .build-tsan/synthetic-output .build-tsan/cache
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" MODELGEN_CACHE_DIR=.build-tsan/cache .build-tsan/debug/modelgen generate .build-tsan/synthetic.model.yaml --output .build-tsan/synthetic-output
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" .build-tsan/debug/modelgen generate .build-tsan/synthetic.model.yaml --output .build-tsan/synthetic-output --no-cache
	@# Fetch requests read while composing and checked in chunks, templates loaded while validating: the
	@# Blog example copied 40 times (240 entities, 120 fetch requests, 0.13 MB).
	@.build-tsan/debug/modelgen-bench --write-model varied 40 >.build-tsan/varied.model.yaml
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" .build-tsan/debug/modelgen validate .build-tsan/varied.model.yaml
	@rm -rf .build-tsan/varied-output
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" .build-tsan/debug/modelgen generate .build-tsan/varied.model.yaml --output .build-tsan/varied-output --no-cache
	@rm -rf .build-tsan/converge && mkdir -p .build-tsan/converge
	@for run in 1 2 3; do \
		TSAN_OPTIONS="halt_on_error=1 exitcode=66" .build-tsan/debug/modelgen-store-stress converge .build-tsan/converge/store.sqlite \
			|| { echo "error: the ThreadSanitizer stress run $$run failed" >&2; exit 1; }; \
	done
	@# Two processes editing different attributes of the same items under .mergeByPropertyObjectTrump (issue 40).
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" .build-tsan/debug/modelgen-store-stress fields .build-tsan/converge/fields.sqlite
	@echo "tsan: 3 stress runs and the two-process field edits clean under ThreadSanitizer"

# The runtime's public type names, which the validator refuses as entity and class names, read from
# Sources/ModelgenRuntime (a test fails when the list is out of date).
runtime-names:
	$(PYTHON) scripts/runtime-type-names.py

# Re-embed Templates/*.mustache into the binary's sources (a test fails when they disagree).
templates:
	$(PYTHON) scripts/embed-templates.py

# Regenerate the reference output of the example models and of the runtime tests' model (tests compare
# it byte for byte, compile it and run it).
reference: build
	rm -rf Tests/GeneratedCodeTests/Reference/Blog Tests/GeneratedCodeTests/Reference/Graphics Tests/GeneratedCodeTests/Reference/Staff Tests/GeneratedCodeTests/Reference/Literals Tests/GeneratedCodeTests/Reference/Clinic
	.build/debug/modelgen generate Examples/Blog/Blog.model.yaml --output Tests/GeneratedCodeTests/Reference/Blog
	.build/debug/modelgen generate Examples/Graphics/Graphics.model.yaml --output Tests/GeneratedCodeTests/Reference/Graphics
	.build/debug/modelgen generate Examples/Staff/Staff.model.yaml --output Tests/GeneratedCodeTests/Reference/Staff
	.build/debug/modelgen generate Tests/Models/Literals.model.yaml --output Tests/GeneratedCodeTests/Reference/Literals
	.build/debug/modelgen generate Tests/Fixtures/Versions/Clinic.modelversions --output Tests/GeneratedCodeTests/Reference/Clinic
	rm -rf Tests/ModelgenRuntimeTests/Generated
	.build/debug/modelgen generate Tests/Models/RuntimeFixture.model.yaml --output Tests/ModelgenRuntimeTests/Generated
	rm -rf Tests/ModelgenRuntimeTests/GeneratedShop
	.build/debug/modelgen generate Tests/Models/Shop.model.yaml --output Tests/ModelgenRuntimeTests/GeneratedShop
	.build/debug/modelgen generate Examples/Inventory/Sources/Inventory/Inventory.model.yaml --output Examples/Inventory/Sources/Inventory/Generated
	.build/debug/modelgen generate Examples/Blog/Blog.model.yaml --output Tests/Reference/SingleFile/Blog --single-file
	.build/debug/modelgen generate Examples/Graphics/Graphics.model.yaml --output Tests/Reference/SingleFile/Graphics --single-file
	.build/debug/modelgen generate Examples/Staff/Staff.model.yaml --output Tests/Reference/SingleFile/Staff --single-file

# The self-contained binary `make install` copies (Swift runtime and Foundation linked statically).
STATIC_BUILD = $(SWIFT) build -c release --product modelgen --static-swift-stdlib --scratch-path .build-static

# A self-contained binary in $(PREFIX)/bin.
install:
	$(STATIC_BUILD)
	install -d "$(PREFIX)/bin"
	install -m 755 .build-static/release/modelgen "$(PREFIX)/bin/modelgen"
	@echo "installed $(PREFIX)/bin/modelgen"

# Release-build benchmarks with printed figures (never timed unit tests). Whole-process times are
# taken of both binaries: the one `swift build` makes (shared Swift libraries, as the plugin runs it)
# and the one `make install` installs.
bench:
	@[ -f /usr/include/yaml.h ] || [ "$$(uname)" = Darwin ] || { echo "installing libyaml-dev (the bench's libyaml floor, ../shared/tools/yaml_floor.c)"; apt-get update -qq && apt-get install -y -qq libyaml-dev >/dev/null; }
	@[ -x /usr/bin/time ] || [ "$$(uname)" = Darwin ] || { echo "installing time (GNU time: the bench's peak-memory figures)"; apt-get update -qq && apt-get install -y -qq time >/dev/null; }
	$(SWIFT) build -c release
	$(STATIC_BUILD)
	.build/release/modelgen-bench .build/release/modelgen --installed .build-static/release/modelgen
	.build/release/modelgen-runtime-bench

# DocC documentation of the runtime and the generator (swift-docc-plugin), into .build/docs/<Target>.
# Every public (and SPI) declaration of the library modules has a doc comment: the compiler's symbol
# graphs list them (scripts/doc-coverage.py prints each one missing at its file and line).
doc-coverage:
	@rm -rf .build/symbolgraph-check
	$(SWIFT) build --build-tests >/dev/null   # the dump covers every module, the test modules too
	$(SWIFT) package dump-symbol-graph --minimum-access-level public --skip-synthesized-members --include-spi-symbols >/dev/null
	@mkdir -p .build/symbolgraph-check && cp "$$($(SWIFT) build --show-bin-path)"/../symbolgraph/*.json .build/symbolgraph-check/
	$(PYTHON) scripts/doc-coverage.py .build/symbolgraph-check

docs:
	@rm -rf .build/docs && mkdir -p .build/docs
	for target in ModelgenRuntime ModelgenCore; do \
		$(SWIFT) package --allow-writing-to-directory .build/docs generate-documentation --target $$target \
			--output-path .build/docs/$$target --warnings-as-errors || exit 1; \
	done
	@echo "docs: .build/docs/ModelgenRuntime, .build/docs/ModelgenCore"

clean:
	rm -rf .build .build-static

# Examples/Server under concurrent writers (issue 40; figures in docs/performance.md, not a timed
# test): 32 clients x 50 products into 3 shared categories on SQLite and on PostgreSQL (two server
# processes), beside one client doing the same work serially; fails on any failed request or lost data.
load: deps deps-postgres
	bash scripts/load.sh

# The staged-migration kill test at full size (issue 39; `swift test` runs it with 10,000 rows): the
# clinic's store with 1,000,000 patients migrated through three stages and killed with SIGKILL at random
# moments, on SQLite and on PostgreSQL; every kill must leave one version with every row as it has them,
# and reopening must finish (scripts/migration-kill.sh). Release build in POSTGRES_BUILD by default; a few
# minutes. MIGRATION_KILL_CONFIG=debug reuses the debug build of the PostgreSQL trait (CI: the build
# make test-postgres made, at a smaller size, instead of a release build from scratch).
MIGRATION_KILL_ROWS ?= 1000000
MIGRATION_KILL_CONFIG ?= release
MIGRATION_KILL_BIN = $(POSTGRES_BUILD)/$(MIGRATION_KILL_CONFIG)/modelgen-store-stress
migration-kill: deps deps-postgres
	$(SWIFT) build -c $(MIGRATION_KILL_CONFIG) --traits PostgreSQL --scratch-path $(POSTGRES_BUILD) --product modelgen-store-stress
	scripts/migration-kill.sh $(MIGRATION_KILL_BIN) $(MIGRATION_KILL_ROWS) 3 $(POSTGRES_BUILD)/migration-kill/clinic.sqlite
	@url=$$(scripts/postgres-server.sh start) || exit 1; \
	trap 'scripts/postgres-server.sh stop' EXIT; \
	scripts/migration-kill.sh $(MIGRATION_KILL_BIN) $(MIGRATION_KILL_ROWS) 4 "$$url?schema=clinic_kill"
	@rm -rf $(POSTGRES_BUILD)/migration-kill

# Random concurrent histories checked for anomalies (docs/concurrency.md, "Isolation, stated"): the
# checker's self-test; SQLite under .error (another connection holding the write lock now and then, so
# saves fail busy), under .mergeByPropertyObjectTrump and with serializable saves, writer processes
# killed at random; a run of the deliberately broken store mode (version check skipped), which the
# checker must fail; then PostgreSQL (two client processes on one schema) with writer processes
# killed, server processes ended (pg_terminate_backend) and the server restarted immediately, and
# with serializable saves. Every run also checks the change streams. HISTORY_SECONDS sets the length
# of each main run (figures: docs/reliability.md).
HISTORY_SECONDS ?= 25
HISTORY_DIR ?= .build/history
STRESS = debug/modelgen-store-stress history
history: deps
	$(PYTHON) scripts/history-check.py --self-test
	$(SWIFT) build --product modelgen-store-stress
	@rm -rf $(HISTORY_DIR) && mkdir -p $(HISTORY_DIR)
	.build/$(STRESS) $(HISTORY_DIR)/error $(HISTORY_DIR)/error.sqlite --seconds $(HISTORY_SECONDS) --processes 2 --clients 3 --kill --busy --seed 1
	$(PYTHON) scripts/history-check.py $(HISTORY_DIR)/error
	.build/$(STRESS) $(HISTORY_DIR)/trump $(HISTORY_DIR)/trump.sqlite --seconds $$(( $(HISTORY_SECONDS) / 2 )) --processes 2 --clients 3 --kill --seed 2 --policy mergeByPropertyObjectTrump
	$(PYTHON) scripts/history-check.py $(HISTORY_DIR)/trump
	.build/$(STRESS) $(HISTORY_DIR)/serializable $(HISTORY_DIR)/serializable.sqlite --seconds $$(( $(HISTORY_SECONDS) / 2 )) --processes 2 --clients 3 --kill --busy --seed 5 --serializable
	$(PYTHON) scripts/history-check.py $(HISTORY_DIR)/serializable
	.build/$(STRESS) $(HISTORY_DIR)/broken $(HISTORY_DIR)/broken.sqlite --seconds 6 --processes 2 --clients 3 --seed 3 --broken
	@if $(PYTHON) scripts/history-check.py $(HISTORY_DIR)/broken >$(HISTORY_DIR)/broken.txt 2>&1; then \
		cat $(HISTORY_DIR)/broken.txt; echo "error: the checker passed the broken store mode" >&2; exit 1; \
	else echo "the broken store mode fails the checker, as it must: $$(grep '^anomalies' $(HISTORY_DIR)/broken.txt)"; fi
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null; then \
		$(SWIFT) build --traits PostgreSQL --scratch-path $(POSTGRES_BUILD) --product modelgen-store-stress || exit 1; \
		url=$$(scripts/postgres-server.sh start) || exit 1; trap 'scripts/postgres-server.sh stop' EXIT; \
		$(POSTGRES_BUILD)/$(STRESS) $(HISTORY_DIR)/postgres "$$url?schema=history_run" --seconds $(HISTORY_SECONDS) --processes 2 --clients 3 \
			--kill --terminate --restart "scripts/postgres-server.sh restart" --seed 4 || exit 1; \
		$(PYTHON) scripts/history-check.py $(HISTORY_DIR)/postgres || exit 1; \
		$(POSTGRES_BUILD)/$(STRESS) $(HISTORY_DIR)/postgres-serializable "$$url?schema=history_serializable" --seconds $$(( $(HISTORY_SECONDS) / 2 )) \
			--processes 2 --clients 3 --kill --terminate --serializable --seed 6 || exit 1; \
		$(PYTHON) scripts/history-check.py $(HISTORY_DIR)/postgres-serializable || exit 1; \
	elif [ "$${CI:-}" = true ]; then echo "error: CI needs PostgreSQL's server for make history" >&2; exit 1; \
	else echo "note: no PostgreSQL server binaries: make history checked SQLite only"; fi

# The PostgreSQL store's figures (release build with the PostgreSQL trait) against a throw-away server:
# insert + save and fetch of 100,000 objects beside PostgresNIO directly, propagation between processes.
bench-postgres: deps deps-postgres
	$(SWIFT) build -c release --traits PostgreSQL --product modelgen-runtime-bench --scratch-path .build-postgres
	@url=$$(scripts/postgres-server.sh start) || exit 1; \
	trap 'scripts/postgres-server.sh stop' EXIT; \
	MODELGEN_POSTGRES_URL=$$url .build-postgres/release/modelgen-runtime-bench postgres
