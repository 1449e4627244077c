#!/usr/bin/env bash
# The README's two commands, `make example` and `make test`, in a fresh clone of the committed HEAD
# with nothing beside it (no ../shared), as a new user runs them; .ci/run calls this after its own
# `make test`, so a test that needs ../shared without saying so fails CI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/modelgen-fresh-XXXXXX")
trap 'rm -rf "$work"' EXIT
git clone --quiet "$root" "$work/modelgen"
cd "$work/modelgen"
if [ -e ../shared ]; then echo "error: $work/shared exists; the fresh clone must have nothing beside it" >&2; exit 1; fi
echo "fresh clone of $(git rev-parse --short HEAD) in $work/modelgen (no ../shared): make example, make test"
env -u CI make example
# The doc-coverage check does not depend on ../shared and .ci/run's own make test ran it (it builds
# PostgresNIO for the symbol graphs: minutes); everything else of make test runs here.
env -u CI DOC_COVERAGE=0 make test
echo "fresh clone: make example and make test passed without ../shared"
