#!/bin/sh
# mkdeb: build BUILD/contend_VERSION_ARCH.deb from a staged tree with dpkg-deb (no debhelper
# needed): the binary, its man page, the docs and the example scenarios; the shared-library
# Depends from dpkg-shlibdeps, the programs contend runs (gnuplot, Graphviz, poppler-utils,
# iproute2) added by hand. `make deb` runs it after building BUILD/contend.
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
mkdir -p "$R/DEBIAN" "$R/usr/bin" "$R/usr/share/man/man1" "$DOC/examples/scenarios" "$DOC/img" "$W/debian"

install -m 755 "$BUILD/contend" "$R/usr/bin/contend"
strip --strip-unneeded "$R/usr/bin/contend" 2>/dev/null || true
gzip -9n <"$TOP/docs/contend.1" >"$R/usr/share/man/man1/contend.1.gz"
chmod 644 "$R/usr/share/man/man1/contend.1.gz"
install -m 644 "$TOP/README.md" "$TOP"/docs/*.md "$DOC/"
install -m 644 "$TOP"/docs/img/*.png "$DOC/img/" 2>/dev/null || true
install -m 644 "$TOP"/docs/scenarios/*.ini "$DOC/examples/scenarios/"
install -m 644 "$TOP/debian/copyright" "$DOC/copyright"

# Shared libraries: dpkg-shlibdeps reads a debian/control with the package's stanza.
printf 'Source: contend\n\nPackage: contend\nArchitecture: any\n' >"$W/debian/control"
shlibs=$(cd "$W" && dpkg-shlibdeps -O -e root/usr/bin/contend 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { echo "mkdeb: dpkg-shlibdeps found no libraries" >&2; exit 1; }
size=$(du -sk "$R/usr" | cut -f1)
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$ARCH/" -e "s/@SHLIBS@/$shlibs/" -e "s/@SIZE@/$size/" \
	"$TOP/debian/control.in" >"$R/DEBIAN/control"
rm -rf "$W/debian"
out=$BUILD/contend_${VERSION}_${ARCH}.deb
dpkg-deb --root-owner-group --build "$R" "$out" >/dev/null
echo "$out"
