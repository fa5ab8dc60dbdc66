#!/bin/sh
# parse_fuzz_regress: every input that once crashed (or upset a sanitizer in) a parse fuzz
# target, run again through that target built with the sanitizers: tests/fuzz/regress/<t>/*
# through tests/fuzz/fuzz_<t>.c. The targets are linked with lib/ and parse/ only.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
cd "$TOP" || exit 1
command -v clang >/dev/null 2>&1 || { echo "skipped: clang is not installed"; exit 77; }
out=$TOP/$BUILD/fuzz-regress
mkdir -p "$out"
src=$(ls lib/*.c parse/*.c | grep -v '_cmd\.c$')
for t in pcap tcpr; do
	bin=$out/fuzz_$t
	if ! clang -std=c11 -g -O1 -I. -D_GNU_SOURCE -DCONTEND_VERSION='"test"' \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -o "$bin" \
	    "tests/fuzz/fuzz_$t.c" $src $(pkg-config --libs libpcap zlib 2>/dev/null || echo -lpcap -lz) -lm \
	    >"$out/build-$t.log" 2>&1; then
		echo "FAIL parse_fuzz_regress/$t: build failed: $(grep -m1 error "$out/build-$t.log")"
		continue
	fi
	n=$(ls "tests/fuzz/regress/$t" 2>/dev/null | wc -l)
	if [ "$n" -eq 0 ]; then
		echo "SKIP parse_fuzz_regress/$t: skipped: no regression inputs"
		continue
	fi
	if "$bin" -runs=1 "tests/fuzz/regress/$t"/* >"$out/run-$t.log" 2>&1; then
		echo "PASS parse_fuzz_regress/$t ($n inputs)"
	else
		echo "FAIL parse_fuzz_regress/$t: $(grep -m1 -E 'ERROR|runtime error' "$out/run-$t.log")"
	fi
done
