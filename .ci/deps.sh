#!/bin/sh
# Install every Debian package contend's build, tests, testbed and reports need.
# Idempotent and quiet when everything is present. Needs root (or sudo) to install.
set -eu
PKGS="build-essential pkg-config libpcap-dev zlib1g-dev libgraphviz-dev graphviz gnuplot-nox
openmpi-bin libopenmpi-dev mpich libmpich-dev tcpdump tshark poppler-utils iproute2
libinih-dev libcap2-bin procps clang fonts-dejavu-core man-db
libbpf-dev xxd
slurmd slurmctld slurm-client munge scalapack-mpi-test lammps
libopen-trace-format2-dev otf2-tools python3-otf2 libsimgrid-dev dpkg-dev debhelper time"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no without a prompt.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
$SUDO apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq $missing >/dev/null
