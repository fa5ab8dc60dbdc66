/* pmpi_count: message ground truth for the tests, never part of contend. A PMPI wrapper,
 * preloaded into an unmodified MPI program (LD_PRELOAD), that counts the point-to-point
 * messages each rank sends, per destination world rank, and writes them at MPI_Finalize to
 * $PMPI_COUNT_DIR/rank-R.tsv as lines "src dst msgs". Collectives are not counted (the
 * libraries implement them below the PMPI layer). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXR 4096

static long sent[MAXR];	/* messages to each world rank */

static void
count(int dest, MPI_Comm comm)
{
	MPI_Group g, w;
	int wr = MPI_UNDEFINED, inter = 0;

	if (dest == MPI_PROC_NULL || dest < 0)
		return;
	PMPI_Comm_test_inter(comm, &inter);
	if (inter)
		PMPI_Comm_remote_group(comm, &g);
	else
		PMPI_Comm_group(comm, &g);
	PMPI_Comm_group(MPI_COMM_WORLD, &w);
	PMPI_Group_translate_ranks(g, 1, &dest, w, &wr);
	PMPI_Group_free(&g);
	PMPI_Group_free(&w);
	if (wr != MPI_UNDEFINED && wr >= 0 && wr < MAXR)
		sent[wr]++;
}

int
MPI_Send(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)
{
	count(d, c);
	return PMPI_Send(b, n, t, d, tag, c);
}

int
MPI_Ssend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)
{
	count(d, c);
	return PMPI_Ssend(b, n, t, d, tag, c);
}

int
MPI_Rsend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)
{
	count(d, c);
	return PMPI_Rsend(b, n, t, d, tag, c);
}

int
MPI_Bsend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)
{
	count(d, c);
	return PMPI_Bsend(b, n, t, d, tag, c);
}

int
MPI_Isend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r)
{
	count(d, c);
	return PMPI_Isend(b, n, t, d, tag, c, r);
}

int
MPI_Issend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r)
{
	count(d, c);
	return PMPI_Issend(b, n, t, d, tag, c, r);
}

int
MPI_Irsend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r)
{
	count(d, c);
	return PMPI_Irsend(b, n, t, d, tag, c, r);
}

int
MPI_Ibsend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r)
{
	count(d, c);
	return PMPI_Ibsend(b, n, t, d, tag, c, r);
}

int
MPI_Sendrecv(const void *sb, int sn, MPI_Datatype st, int d, int stag, void *rb, int rn,
	     MPI_Datatype rt, int s, int rtag, MPI_Comm c, MPI_Status *status)
{
	count(d, c);
	return PMPI_Sendrecv(sb, sn, st, d, stag, rb, rn, rt, s, rtag, c, status);
}

int
MPI_Sendrecv_replace(void *b, int n, MPI_Datatype t, int d, int stag, int s, int rtag,
		     MPI_Comm c, MPI_Status *status)
{
	count(d, c);
	return PMPI_Sendrecv_replace(b, n, t, d, stag, s, rtag, c, status);
}

int
MPI_Finalize(void)
{
	const char *dir = getenv("PMPI_COUNT_DIR");
	int me = -1;

	PMPI_Comm_rank(MPI_COMM_WORLD, &me);
	if (dir != NULL && me >= 0) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof path, "%s/rank-%d.tsv", dir, me);
		if ((f = fopen(path, "w")) != NULL) {
			for (int r = 0; r < MAXR; r++)
				if (sent[r] > 0)
					fprintf(f, "%d %d %ld\n", me, r, sent[r]);
			fclose(f);
		}
	}
	return PMPI_Finalize();
}
