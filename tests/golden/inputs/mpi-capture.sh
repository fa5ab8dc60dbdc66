#!/bin/sh
# mpi-capture: build mpi-known.c with Open MPI and MPICH, run each with 2 ranks over
# loopback TCP while tcpdump records, and write mpi-known-ompi.pcap / mpi-known-mpich.pcap
# (and mpi-known-ompi-ucx.pcap: Open MPI with pml ucx on UCX's TCP transport) into the
# directory given (default: a temporary one). Needs root (tcpdump on lo).
# Usage: sh tests/golden/inputs/mpi-capture.sh OUTDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
mpicc -O2 -o "$out/known-ompi" "$here/mpi-known.c"
mpicc.mpich -O2 -o "$out/known-mpich" "$here/mpi-known.c"

run() {	# $1 = pcap name, rest = command
	name=$1
	shift
	tcpdump -i lo -B 262144 -w "$out/$name" -s 0 tcp 2>/dev/null &
	pid=$!
	sleep 1
	"$@"
	sleep 1
	kill "$pid"
	wait "$pid" || true
}
run mpi-known-ompi.pcap mpirun --allow-run-as-root --oversubscribe -np 2 --mca btl tcp,self \
	--mca btl_tcp_if_include lo "$out/known-ompi"
run mpi-known-ompi-ucx.pcap mpirun --allow-run-as-root --oversubscribe -np 2 --mca pml ucx \
	--mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_TLS=tcp,self -x UCX_NET_DEVICES=lo \
	"$out/known-ompi"
run mpi-known-mpich.pcap mpiexec.mpich -n 2 -genv MPIR_CVAR_NOLOCAL 1 -genv UCX_TLS tcp,self \
	-genv UCX_NET_DEVICES lo "$out/known-mpich"
echo "$out"
