#!/bin/sh
# deb: `make deb` builds a Debian package whose Depends name the shared libraries the binary
# links (from dpkg-shlibdeps) and that apt can satisfy; unpacked into a scratch root
# (dpkg -x) and installed into another (dpkg --root), its contend runs and its man page
# renders; `dpkg-buildpackage -b -us -uc` builds the same package through debhelper
# (debian/rules) from a copy of the tracked source. Nothing is installed on this machine.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
E2E_NAME=deb
. "$TOP/tests/e2e/checks.inc"
T=$(mktemp -d /tmp/contend-e2e-deb.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM

for t in dpkg-deb dpkg-shlibdeps; do
	command -v $t >/dev/null 2>&1 || { echo "skipped: no $t (Debian dpkg-dev)"; exit 77; }
done
[ -x "$TOP/$BUILD/contend" ] || { echo "skipped: no $TOP/$BUILD/contend"; exit 77; }
version=$(cat "$TOP/VERSION")
arch=$(dpkg --print-architecture)
make -C "$TOP" --no-print-directory BUILD="$BUILD" deb >"$T/make.log" 2>&1
rc=$?
deb=$TOP/$BUILD/contend_${version}_${arch}.deb
check make-deb "[ $rc -eq 0 ] && [ -f $deb ]" "exit $rc: $(tail -n 1 "$T/make.log")"
[ -f "$deb" ] || exit 1

dpkg-deb -f "$deb" Package Version Architecture Depends >"$T/fields" 2>&1
check fields "grep -qx 'Package: contend' $T/fields && grep -qx 'Version: $version' $T/fields" "$(cat "$T/fields")"
# every library the binary needs is named (libc, libpcap, zlib, Graphviz, inih, libotf2)
deps=$(sed -n 's/^Depends: //p' "$T/fields")
ok=1
for lib in libc6 libpcap0.8 zlib1g libcgraph6 libgvc6 libinih1 libopen-trace-format2; do
	case $deps in *"$lib"*) ;; *) ok=0; fail "depends-$lib" "Depends lacks $lib: $deps" ;; esac
done
[ $ok -eq 1 ] && pass depends-libraries
dpkg-deb -c "$deb" >"$T/list"
for f in ./usr/bin/contend ./usr/share/man/man1/contend.1.gz ./usr/share/doc/contend/copyright \
	./usr/share/doc/contend/export.md ./usr/share/doc/contend/examples/scenarios/load-one-node.ini; do
	check "file-$(basename "$f")" "grep -q ' $f\$' $T/list" "$f not in the package"
done

# unpacked into a scratch root: the binary runs from there, with its own version
dpkg -x "$deb" "$T/x"
out=$("$T/x/usr/bin/contend" --version 2>&1 | head -n 1)
check runs-unpacked "[ '$out' = 'contend $version' ]" "contend --version said: $out"
"$T/x/usr/bin/contend" export --help >/dev/null 2>&1
check export-help "[ $? -eq 0 ]" "contend export --help failed"
if command -v man >/dev/null 2>&1; then
	man -l "$T/x/usr/share/man/man1/contend.1.gz" 2>/dev/null | grep -q 'export' && pass man-page ||
		fail man-page "the installed man page does not render or lacks export"
fi

# installed by dpkg into an empty root (dependencies are this machine's business, not the root's)
mkdir -p "$T/root/var/lib/dpkg/info" "$T/root/var/lib/dpkg/updates"
: >"$T/root/var/lib/dpkg/status"
dpkg --root="$T/root" --force-depends --force-script-chrootless --log=/dev/null -i "$deb" >"$T/dpkg.log" 2>&1
rc=$?
check dpkg-root-install "[ $rc -eq 0 ] && [ -x $T/root/usr/bin/contend ]" "exit $rc: $(tail -n 1 "$T/dpkg.log")"
out=$("$T/root/usr/bin/contend" --version 2>&1 | head -n 1)
check runs-installed "[ '$out' = 'contend $version' ]" "contend --version said: $out"
dpkg --root="$T/root" -s contend 2>/dev/null | grep -q '^Status: install ok installed' &&
	pass dpkg-status || fail dpkg-status "dpkg --root does not list contend as installed"

# apt can satisfy the Depends from the archive (a simulation; installs nothing)
if command -v apt-get >/dev/null 2>&1; then
	apt-get -s install "$deb" >"$T/apt.log" 2>&1
	rc=$?
	check apt-resolves "[ $rc -eq 0 ] && grep -q '^Inst contend\|^contend is already' $T/apt.log" \
		"exit $rc: $(grep -m 1 -E 'E:|Depends' "$T/apt.log")"
fi

# the same package through debhelper, as Debian builds packages: dpkg-buildpackage on a copy
# of the tracked source (it writes next to the source directory)
if ! command -v dpkg-buildpackage >/dev/null 2>&1 || ! command -v dh >/dev/null 2>&1; then
	echo "SKIP e2e/deb/dpkg-buildpackage: skipped: no dpkg-buildpackage or dh (Debian debhelper)"
	exit 0
fi
if ! git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	echo "SKIP e2e/deb/dpkg-buildpackage: skipped: $TOP is not a git checkout (the tracked files are built)"
	exit 0
fi
mkdir -p "$T/src/contend"
git -C "$TOP" ls-files -z | (cd "$TOP" && xargs -0 tar -cf - 2>/dev/null) | tar -C "$T/src/contend" -xf -
(cd "$T/src/contend" && DEB_BUILD_OPTIONS="parallel=2 nocheck" nice dpkg-buildpackage -b -us -uc) >"$T/dpb.log" 2>&1
rc=$?
ddeb=$T/src/contend_${version}_${arch}.deb
check dpkg-buildpackage "[ $rc -eq 0 ] && [ -f $ddeb ]" "exit $rc: $(tail -n 2 "$T/dpb.log" | tr '\n' ' ')"
[ -f "$ddeb" ] || exit 0
dpkg -x "$ddeb" "$T/dx"
out=$("$T/dx/usr/bin/contend" --version 2>&1 | head -n 1)
check dh-runs "[ '$out' = 'contend $version' ]" "contend --version said: $out"
ddeps=$(dpkg-deb -f "$ddeb" Depends)
check dh-depends "[ '$ddeps' = '$deps' ]" "debhelper's Depends '$ddeps' differ from make deb's '$deps'"
for f in ./usr/share/man/man1/contend.1.gz ./usr/share/doc/contend/copyright \
	./usr/share/doc/contend/examples/scenarios/load-one-node.ini; do
	dpkg-deb -c "$ddeb" | grep -q " $f\$" || fail "dh-file-$(basename "$f")" "$f not in debhelper's package"
done
pass dh-files
