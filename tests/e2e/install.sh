#!/bin/sh
# install: `make install PREFIX=DIR` puts a working binary and a readable man page under DIR,
# the man page documents every command the binary has, and `make uninstall` removes both.
# Uses the build in $BUILD (default build). Prints PASS/FAIL lines.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
tmp=$(mktemp -d /tmp/contend-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
failed=0

pass() { echo "PASS e2e/install/$1"; }
fail() { echo "FAIL e2e/install/$1: $2"; failed=1; }

if ! make -C "$TOP" --no-print-directory BUILD="$BUILD" PREFIX="$prefix" install >"$tmp/make.log" 2>&1; then
	fail make-install "make install failed: $(tail -n 1 "$tmp/make.log")"
	exit 1
fi
bin="$prefix/bin/contend"
page="$prefix/share/man/man1/contend.1"
if [ -x "$bin" ] && [ -f "$page" ]; then
	pass installed-files
else
	fail installed-files "missing $bin or $page"
	exit 1
fi

# The installed binary runs on its own (not from the build directory).
want_version=$(cat "$TOP/VERSION" 2>/dev/null || echo 0.0.0)
if (cd "$tmp" && "$bin" version) >"$tmp/version.out" 2>&1 &&
   head -n 1 "$tmp/version.out" | grep -qx "contend $want_version"; then
	pass binary-runs
else
	fail binary-runs "'contend version' said: $(head -n 1 "$tmp/version.out")"
fi
"$bin" help >"$tmp/help.out" 2>&1 || fail help "'contend help' failed"
"$bin" no-such-command >/dev/null 2>&1
[ $? -eq 2 ] && pass usage-exit-2 || fail usage-exit-2 "an unknown command did not exit 2"

# Render the page with man -l, else groff, else only check the file.
rendered="$tmp/page.txt"
if command -v man >/dev/null 2>&1 && MANWIDTH=80 MAN_KEEP_FORMATTING= man -l "$page" >"$rendered" 2>"$tmp/man.err"; then
	how="man -l"
elif command -v groff >/dev/null 2>&1 && groff -man -Tascii "$page" >"$rendered" 2>"$tmp/man.err"; then
	how=groff
else
	how=""
fi
if [ -z "$how" ]; then
	grep -q '^\.TH CONTEND 1' "$page" && pass man-page-file || fail man-page-file "no .TH line"
	echo "SKIP e2e/install/man-render: skipped: neither man nor groff is installed"
else
	# Strip overstrike bold/underline should a pager-less man leave it in.
	sed 's/.\x08//g' "$rendered" >"$rendered.plain"
	ok=1
	for sec in NAME SYNOPSIS DESCRIPTION COMMANDS FILES "EXIT STATUS" EXAMPLES "SEE ALSO"; do
		grep -q "^$sec\$" "$rendered.plain" || { ok=0; fail man-render "($how) no section '$sec'"; }
	done
	[ $ok -eq 1 ] && pass "man-render ($how)"
	if command -v groff >/dev/null 2>&1; then
		groff -man -ww -z "$page" >"$tmp/groff.warn" 2>&1
		if [ -s "$tmp/groff.warn" ]; then
			fail man-no-warnings "groff: $(head -n 1 "$tmp/groff.warn")"
		else
			pass man-no-warnings
		fi
	fi
	# Every command in the binary's table has its paragraph under COMMANDS.
	cmds=$(sed -n '/^commands:/,/^$/p' "$tmp/help.out" | awk 'NF > 1 { print $1 }')
	[ -n "$cmds" ] || fail man-commands "no commands found in 'contend help'"
	sed -n '/^COMMANDS$/,/^FILES$/p' "$rendered.plain" >"$tmp/commands.txt"
	ok=1
	for c in $cmds; do
		grep -Eq "^ {7}$c( |\$)" "$tmp/commands.txt" ||
			{ ok=0; fail man-commands "command '$c' is not under COMMANDS"; }
	done
	[ $ok -eq 1 ] && [ -n "$cmds" ] && pass man-commands
fi

if make -C "$TOP" --no-print-directory BUILD="$BUILD" PREFIX="$prefix" uninstall >>"$tmp/make.log" 2>&1 &&
   [ ! -e "$bin" ] && [ ! -e "$page" ]; then
	pass uninstall
else
	fail uninstall "files left after make uninstall"
fi
exit $failed
