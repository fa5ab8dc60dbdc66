#!/bin/sh
# Every source of the tool, its tests and benchmarks through clang's front end with the
# build's warnings as errors (`make lint-clang CI=true`): a second compiler's view.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang >/dev/null || { echo "skipped: clang missing"; exit 77; }
if out=$(make -s -C "$TOP" CI=true lint-clang 2>&1); then
	echo "PASS e2e/lint_clang/no-warnings"
else
	echo "FAIL e2e/lint_clang/no-warnings: $(echo "$out" | grep -m 1 -E 'error|warning')"
fi
