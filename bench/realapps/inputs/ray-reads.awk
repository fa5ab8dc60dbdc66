# ray-reads.awk: a deterministic random genome of G bases and error-free reads of L bases
# from it, one starting every S bases, alternately from the forward and reverse strand,
# as FASTA on stdout (the input of Ray in bench/realapps). The Park-Miller generator,
# exact in double arithmetic, so that every awk writes the same file.
# Usage: awk -v G=30000 -v L=100 -v S=10 -f ray-reads.awk
function rnd() { x = (x * 16807) % 2147483647; return x }
BEGIN {
	if (!G) G = 30000; if (!L) L = 100; if (!S) S = 10
	x = 20261125
	split("A C G T", base, " ")
	comp["A"] = "T"; comp["C"] = "G"; comp["G"] = "C"; comp["T"] = "A"
	g = ""
	for (i = 0; i < G; i++) g = g base[int(rnd() / 65536) % 4 + 1]
	n = 0
	for (p = 1; p + L - 1 <= G; p += S) {
		r = substr(g, p, L)
		if (n % 2) { rc = ""; for (j = L; j >= 1; j--) rc = rc comp[substr(r, j, 1)]; r = rc }
		printf ">r%d\n%s\n", n++, r
	}
}
