#!/bin/sh
# bench/realapps/setup.sh: install the Debian packages of bench/realapps's programs (root).
# Nothing is vendored: the programs are Debian's own builds, run as shipped.
set -eu
PKGS="lammps scalapack-mpi-test mpb-mpi hyphy-mpi garli-mpi"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && { echo "realapps: every package is installed ($PKGS)"; exit 0; }
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "realapps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
