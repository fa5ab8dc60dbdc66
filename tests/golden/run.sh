#!/bin/sh
# Run tests/golden/TESTLIST: each line runs contend with its arguments and compares the
# exit status and (when an expected file is named) stdout.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
CONTEND=${CONTEND:-$TOP/build/contend}
TRACES=$TOP/traces
REF=$TOP/../shared/reference/captures
export TZ=UTC LC_ALL=C
cd "$TOP" || exit 1
got=$(mktemp)
trap 'rm -f "$got"' EXIT
grep -vE '^(#|[[:space:]]*$)' tests/golden/TESTLIST | while IFS= read -r line; do
	name=$(echo "$line" | awk -F' [|] ' '{print $1}')
	want_rc=$(echo "$line" | awk -F' [|] ' '{print $2}')
	want=$(echo "$line" | awk -F' [|] ' '{print $3}')
	args=$(echo "$line" | awk -F' [|] ' '{print $4}')
	args=$(echo "$args" | sed "s#\$TRACES#$TRACES#g; s#\$REF#$REF#g")
	# shellcheck disable=SC2086
	$CONTEND $args >"$got" 2>/dev/null
	rc=$?
	if [ "$rc" != "$want_rc" ]; then
		echo "FAIL golden/$name: exit $rc, expected $want_rc"
	elif [ "$want" != "-" ] && ! cmp -s "$got" "tests/golden/expected/$want"; then
		echo "FAIL golden/$name: output differs from tests/golden/expected/$want"
		diff "tests/golden/expected/$want" "$got" | head -n 10 | sed 's/^/    | /'
	else
		echo "PASS golden/$name"
	fi
done
