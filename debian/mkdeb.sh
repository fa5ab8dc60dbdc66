#!/bin/sh
# mkdeb: build BUILD/contend_VERSION_ARCH.deb from a staged tree with dpkg-deb (no debhelper
# needed; with debhelper, `dpkg-buildpackage -b -us -uc` builds the same package from
# debian/rules): the binary, its man page, the docs and the example scenarios. The control
# file is debian/control's binary stanza with the version, the architecture, the size and
# the shared-library Depends from dpkg-shlibdeps filled in. `make deb` runs it after
# building BUILD/contend.
# usage: sh debian/mkdeb.sh [BUILD]
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
[ -x "$BUILD/contend" ] || { echo "mkdeb: no '$BUILD/contend' (run make first)" >&2; exit 1; }
for t in dpkg-deb dpkg-shlibdeps; do
	command -v $t >/dev/null 2>&1 || { echo "mkdeb: '$t' not found (Debian dpkg-dev)" >&2; exit 1; }
done
VERSION=$(cat "$TOP/VERSION")
ARCH=$(dpkg --print-architecture)
W=$BUILD/deb
R=$W/root
DOC=$R/usr/share/doc/contend
rm -rf "$W"
mkdir -p "$R/DEBIAN" "$R/usr/bin" "$R/usr/share/man/man1" "$R/usr/share/contend" "$DOC/examples/scenarios" "$DOC/img" "$W/debian"

install -m 755 "$BUILD/contend" "$R/usr/bin/contend"
strip --strip-unneeded "$R/usr/bin/contend" 2>/dev/null || true
gzip -9n <"$TOP/docs/contend.1" >"$R/usr/share/man/man1/contend.1.gz"
chmod 644 "$R/usr/share/man/man1/contend.1.gz"
install -m 644 "$TOP/README.md" "$TOP"/docs/*.md "$DOC/"
install -m 644 "$TOP"/docs/img/*.png "$DOC/img/" 2>/dev/null || true
install -m 644 "$TOP"/docs/scenarios/*.ini "$DOC/examples/scenarios/"
install -m 644 "$TOP/debian/copyright" "$DOC/copyright"
# bench/realapps' measured errors, for the headline's interval (predict/stage.c load_errors)
install -m 644 "$TOP/bench/results/realapps/accuracy.tsv" "$R/usr/share/contend/realapps-4x1.tsv"
install -m 644 "$TOP/bench/results/realapps/2x1/accuracy.tsv" "$R/usr/share/contend/realapps-2x1.tsv"
install -m 644 "$TOP/bench/results/observer-cost.tsv" "$R/usr/share/contend/observer-cost.tsv"

# Shared libraries: dpkg-shlibdeps reads a debian/control with the package's stanza.
printf 'Source: contend\n\nPackage: contend\nArchitecture: any\n' >"$W/debian/control"
shlibs=$(cd "$W" && dpkg-shlibdeps -O -e root/usr/bin/contend 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { echo "mkdeb: dpkg-shlibdeps found no libraries" >&2; exit 1; }
size=$(du -sk "$R/usr" | cut -f1)
awk -v ver="$VERSION" -v arch="$ARCH" -v shlibs="$shlibs" -v size="$size" '
	/^(Maintainer|Section|Priority):/ && !bin { src[++n] = $0; next }
	/^Package:/ { bin = 1; print; print "Version: " ver; next }
	!bin { next }
	/^Architecture:/ {
		print "Architecture: " arch
		for (i = 1; i <= n; i++) print src[i]
		print "Installed-Size: " size
		next
	}
	{ sub(/\$\{shlibs:Depends\}/, shlibs); sub(/, \$\{misc:Depends\}/, ""); print }
' "$TOP/debian/control" >"$R/DEBIAN/control"
rm -rf "$W/debian"
out=$BUILD/contend_${VERSION}_${ARCH}.deb
dpkg-deb --root-owner-group --build "$R" "$out" >/dev/null
echo "$out"
