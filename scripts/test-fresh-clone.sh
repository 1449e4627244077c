#!/usr/bin/env bash
# The README's two commands, `make example` and `make test`, where the repository has nothing beside
# it (no ../shared) and CI is unset, as a new user runs them; .ci/run calls this after its own
# `make test`, so a test that needs ../shared without saying so fails CI.
#
# By default in a fresh clone of the committed HEAD. In CI (as root, where mount namespaces are
# allowed) the checkout is itself a fresh clone that .ci/run's `make test` has just built: it is
# tested again in place, in a private mount namespace whose view of its parent directory holds
# nothing but the checkout (an empty tmpfs over the parent, the checkout bound back into it), so the
# build is reused. Where that view cannot be made, the fresh clone is built instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
script="$root/scripts/$(basename "$0")"

# make example, then make test without the doc-coverage check (it does not depend on ../shared and
# .ci/run's own make test ran it: it builds PostgresNIO for the symbol graphs, minutes).
readme_commands() {
    if [ -e ../shared ]; then echo "error: $(cd .. && pwd)/shared exists; the check needs nothing beside the repository" >&2; exit 1; fi
    env -u CI make example
    env -u CI DOC_COVERAGE=0 make test
}

if [ "${1:-}" = --in-namespace ]; then
    # Inside the private mount namespace: exit status 90 says the view could not be made (the caller
    # clones instead); anything after that is the commands' own outcome.
    parent=$(dirname "$root") name=$(basename "$root")
    [ "$parent" != / ] || exit 90
    keep=""
    for base in /run /dev/shm /mnt /tmp; do
        case "$base/" in "$parent"/*) continue ;; esac
        [ -d "$base" ] && keep=$(mktemp -d "$base/modelgen-checkout.XXXXXX" 2>/dev/null) && break
    done
    [ -n "$keep" ] || exit 90
    mount --bind "$root" "$keep" && mount -t tmpfs -o mode=755 tmpfs "$parent" && mkdir "$parent/$name" \
        && mount --bind "$keep" "$parent/$name" || exit 90
    cd "$parent/$name"
    # The tools must still be there (none may live beside the checkout).
    command -v swift >/dev/null && swift --version >/dev/null 2>&1 && command -v make >/dev/null || exit 90
    echo "checkout $(git rev-parse --short HEAD) in place with nothing beside it (private mount namespace): make example, make test"
    readme_commands
    echo "nothing beside the repository: make example and make test passed without ../shared"
    exit 0
fi

if [ "${CI:-}" = true ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare --mount true 2>/dev/null; then
    status=0
    unshare --mount --propagation private bash "$script" --in-namespace || status=$?
    [ $status = 90 ] || exit $status
    echo "note: the checkout's parent directory could not be hidden; testing a fresh clone instead"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/modelgen-fresh-XXXXXX")
trap 'rm -rf "$work"' EXIT
git clone --quiet "$root" "$work/modelgen"
cd "$work/modelgen"
echo "fresh clone of $(git rev-parse --short HEAD) in $work/modelgen (no ../shared): make example, make test"
readme_commands
echo "fresh clone: make example and make test passed without ../shared"
