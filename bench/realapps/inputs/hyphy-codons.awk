# hyphy-codons.awk: a deterministic codon alignment of N taxa and C codons (no stop codons)
# with a balanced tree, as NEXUS on stdout (the input of HyPhy's FEL in bench/realapps).
# Each taxon is the root sequence with about one codon in P changed; the Park-Miller
# generator, exact in double arithmetic, so that every awk writes the same file.
# Usage: awk -v N=8 -v C=300 -v P=5 -f hyphy-codons.awk
function rnd() { x = (x * 16807) % 2147483647; return x }
function codon(  c) {
	do c = b[rnd() % 4 + 1] b[rnd() % 4 + 1] b[rnd() % 4 + 1]
	while (c == "TAA" || c == "TAG" || c == "TGA")
	return c
}
function tree(lo, hi,  mid) {
	if (lo == hi) return "t" lo
	mid = int((lo + hi) / 2)
	return "(" tree(lo, mid) "," tree(mid + 1, hi) ")"
}
BEGIN {
	if (!N) N = 8; if (!C) C = 300; if (!P) P = 5
	x = 20261125
	split("A C G T", b, " ")
	for (i = 1; i <= C; i++) root[i] = codon()
	printf "#NEXUS\nBEGIN TAXA;\n\tDIMENSIONS NTAX=%d;\n\tTAXLABELS", N
	for (t = 1; t <= N; t++) printf " t%d", t
	printf ";\nEND;\nBEGIN CHARACTERS;\n\tDIMENSIONS NCHAR=%d;\n\tFORMAT DATATYPE=DNA MISSING=? GAP=-;\n\tMATRIX\n", 3 * C
	for (t = 1; t <= N; t++) {
		s = ""
		for (i = 1; i <= C; i++) s = s (rnd() % P ? root[i] : codon())
		printf "\tt%d %s\n", t, s
	}
	printf "\t;\nEND;\nBEGIN TREES;\n\tTREE tree = %s;\nEND;\n", tree(1, N)
}
