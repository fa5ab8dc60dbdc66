#!/bin/sh
# parse_fuzz_regress: every input that once crashed (or upset a sanitizer in) a parse fuzz
# target (tests/fuzz/crashes/fuzz_<t>-*) and its seed corpus (tests/fuzz/corpus/fuzz_<t>/),
# run again through tests/fuzz/fuzz_<t>.c (t: pcap, tcpr, meta, sockets) built with the sanitizers, linked with lib/ and
# parse/ only (quicker than `make fuzz`, which instruments the whole library).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
cd "$TOP" || exit 1
command -v clang >/dev/null 2>&1 || { echo "skipped: clang is not installed"; exit 77; }
out=$TOP/$BUILD/fuzz-regress
mkdir -p "$out"
src=$(ls lib/*.c parse/*.c | grep -v '_cmd\.c$')
for t in pcap tcpr meta sockets; do
	bin=$out/fuzz_$t
	if ! clang -std=c11 -g -O1 -I. -D_GNU_SOURCE -DCONTEND_VERSION='"test"' \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -o "$bin" \
	    "tests/fuzz/fuzz_$t.c" $src $(pkg-config --libs libpcap zlib 2>/dev/null || echo -lpcap -lz) -lm \
	    >"$out/build-$t.log" 2>&1; then
		echo "FAIL parse_fuzz_regress/$t: build failed: $(grep -m1 error "$out/build-$t.log")"
		continue
	fi
	inputs=$(ls tests/fuzz/crashes/fuzz_$t-* tests/fuzz/corpus/fuzz_$t/* 2>/dev/null)
	n=$(echo "$inputs" | grep -c .)
	if [ "$n" -eq 0 ]; then
		echo "SKIP parse_fuzz_regress/$t: skipped: no regression inputs"
		continue
	fi
	# shellcheck disable=SC2086
	if "$bin" -runs=1 $inputs >"$out/run-$t.log" 2>&1; then
		echo "PASS parse_fuzz_regress/$t ($n inputs)"
	else
		echo "FAIL parse_fuzz_regress/$t: $(grep -m1 -E 'ERROR|runtime error' "$out/run-$t.log")"
	fi
done
