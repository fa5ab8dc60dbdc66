/* pmpi_log.c: message ground truth for the test and bench harnesses: every point-to-point
 * send and every collective call of an MPI program, per rank, through the PMPI profiling
 * layer, and every interval the rank spent inside an MPI call that can wait.
 *
 * Loaded with LD_PRELOAD by tests/ and bench/ only (`env LD_PRELOAD=... APP` inside the
 * launcher, so that neither the launcher nor `contend collect` carries it); collect itself
 * never injects anything. Built once per MPI (mpicc for Open MPI, mpicc.mpich for MPICH)
 * because the two mpi.h differ in their handle types.
 *
 * Writes $PMPI_LOG_DIR/rank-<world rank>.tsv (format "pmpi" v1, bench/realapps/README.md) at
 * MPI_Finalize; rows are buffered in a stdio buffer opened at MPI_Init. Without
 * PMPI_LOG_DIR nothing is written and every call goes straight to PMPI.
 *
 * Fortran: MPICH's Fortran bindings call the C MPI_ functions, which are wrapped here. Open
 * MPI 4.1's mpif-h bindings (mpi_send_, ...) and the mpi_f08 ones (through ompi_send_f)
 * call PMPI_ directly, so for Open MPI the Fortran entry points of the sends and of the
 * common collectives are wrapped too and call the real pmpi_*_ through dlsym.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MERGE_NS 1000	/* calls of one kind closer than this are one "mpi" row */

static FILE *log_fp;		/* NULL: not logging */
static int log_tried;		/* log_open ran (it runs once) */
static int world_rank = -1;	/* this process's rank in MPI_COMM_WORLD */
static MPI_Group world_group;	/* valid while log_fp is set */

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long long
type_bytes(MPI_Datatype type, long long count)
{
	int sz = 0;	/* bytes of one element; 0 for a bad or null type */

	if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &sz) != MPI_SUCCESS)
		return 0;
	return count * sz;
}

/* The world rank of rank r of comm (its remote group for an intercommunicator); -1 when r
 * is not a rank (MPI_PROC_NULL, MPI_ANY_SOURCE, a root argument of an intercommunicator
 * collective) or cannot be translated. */
static int
to_world(MPI_Comm comm, int r)
{
	MPI_Group g;
	int inter = 0, w = -1;

	if (r < 0)
		return -1;
	if (comm == MPI_COMM_WORLD)
		return r;
	PMPI_Comm_test_inter(comm, &inter);
	if ((inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g)) != MPI_SUCCESS)
		return -1;
	if (PMPI_Group_translate_ranks(g, 1, &r, world_group, &w) != MPI_SUCCESS || w == MPI_UNDEFINED)
		w = -1;
	PMPI_Group_free(&g);
	return w;
}

static int
comm_size(MPI_Comm comm)
{
	int n = 0;

	PMPI_Comm_size(comm, &n);
	return n;
}

static void log_open(void);

/* Whether to log: opens the log at the first call after MPI is up when no MPI_Init of ours
 * ran (Open MPI's Fortran MPI_INIT calls PMPI_Init itself). */
static int
logging(void)
{
	int up = 0;

	if (!log_fp && !log_tried && PMPI_Initialized(&up) == MPI_SUCCESS && up)
		log_open();
	return log_fp != NULL;
}

/* One send: a row of kind "p2p". MPI_PROC_NULL sends move nothing and are not written. */
static void
log_send(const char *call, MPI_Comm comm, int dest, int tag, MPI_Datatype type, long long count)
{
	if (!logging() || dest == MPI_PROC_NULL)
		return;
	fprintf(log_fp, "%lld\tp2p\t%s\t%d\t%d\t%d\t%d\t%d\t%lld\t-1\t-1\t1\n", (long long)now_ns(), call,
		world_rank, to_world(comm, dest), tag, (int)PMPI_Comm_c2f(comm), comm_size(comm),
		type_bytes(type, count));
}

/* One collective call: a row of kind "coll"; bytes are what this rank contributes. */
static void
log_coll(const char *call, MPI_Comm comm, int root, long long bytes)
{
	if (!logging())
		return;
	fprintf(log_fp, "%lld\tcoll\t%s\t%d\t-1\t-1\t%d\t%d\t%lld\t%d\t-1\t1\n", (long long)now_ns(), call,
		world_rank, (int)PMPI_Comm_c2f(comm), comm_size(comm), bytes, to_world(comm, root));
}

/* ---- intervals inside MPI ("mpi" rows) ---- */
static int span_depth;		/* wrapped calls in progress: only the outermost is timed */
static struct span {
	const char *call;	/* NULL: nothing pending */
	int64_t enter_ns, exit_ns;	/* CLOCK_REALTIME */
	long long calls;	/* calls merged into this row */
	int comm, comm_size;	/* of the first call; -1 for calls without a communicator */
} pend;
static unsigned long long span_calls, span_rows;	/* for the log's trailer */

static void
span_flush(void)
{
	if (!pend.call || !log_fp)
		return;
	fprintf(log_fp, "%lld\tmpi\t%s\t%d\t-1\t-1\t%d\t%d\t-1\t-1\t%lld\t%lld\n",
		(long long)pend.enter_ns, pend.call, world_rank, pend.comm, pend.comm_size,
		(long long)pend.exit_ns, pend.calls);
	span_rows++;
	pend.call = NULL;
}

/* Before the PMPI call: its enter time, or -1 inside another wrapped call. */
static int64_t
span_enter(void)
{
	return span_depth++ == 0 ? now_ns() : -1;
}

/* After it: one interval [enter_ns, now] of call on comm (MPI_COMM_NULL: none), merged into
 * the pending row when that is the same call and ended less than MERGE_NS ago. */
static void
span_exit(const char *call, int64_t enter_ns, MPI_Comm comm)
{
	int64_t t = enter_ns < 0 ? 0 : now_ns();

	span_depth--;
	if (enter_ns < 0 || !logging())
		return;
	span_calls++;
	if (pend.call == call && enter_ns - pend.exit_ns < MERGE_NS) {
		pend.exit_ns = t;
		pend.calls++;
		return;
	}
	span_flush();
	pend = (struct span){ call, enter_ns, t, 1, -1, -1 };
	if (comm != MPI_COMM_NULL) {
		pend.comm = (int)PMPI_Comm_c2f(comm);
		pend.comm_size = comm_size(comm);
	}
}

/* The value of the PMPI call EXPR, timed as an interval of CALL on COMM. */
#define SPAN(CALL, COMM, EXPR) __extension__ ({					\
	int64_t span_t0_ = span_enter();						\
	int span_rc_ = (EXPR);								\
										\
	span_exit(CALL, span_t0_, COMM);						\
	span_rc_;									\
})

static long long
sum_counts(const int *counts, int n)
{
	long long s = 0;

	for (int i = 0; counts && i < n; i++)
		s += counts[i];
	return s;
}

/* Persistent sends: what MPI_Start will send, by request. */
#define PERSIST_MAX 4096
static struct persist {
	MPI_Request req;	/* MPI_REQUEST_NULL: free slot */
	const char *call;
	MPI_Comm comm;
	int dest, tag;
	MPI_Datatype type;
	int count;
} persist[PERSIST_MAX];
static int persist_n;		/* slots in use at the low end, some may be free again */
static unsigned long persist_lost;	/* persistent sends beyond PERSIST_MAX: not logged */

static void
persist_add(MPI_Request req, const char *call, MPI_Comm comm, int dest, int tag, MPI_Datatype type, int count)
{
	int i;

	if (!logging())
		return;
	for (i = 0; i < persist_n && persist[i].req != MPI_REQUEST_NULL; i++)
		;
	if (i == PERSIST_MAX) {
		persist_lost++;
		return;
	}
	if (i == persist_n)
		persist_n++;
	persist[i] = (struct persist){ req, call, comm, dest, tag, type, count };
}

static struct persist *
persist_find(MPI_Request req)
{
	for (int i = 0; req != MPI_REQUEST_NULL && i < persist_n; i++)
		if (persist[i].req == req)
			return &persist[i];
	return NULL;
}

static void
log_start(MPI_Request req)
{
	struct persist *p = persist_find(req);

	if (p)
		log_send(p->call, p->comm, p->dest, p->tag, p->type, p->count);
}

static void
log_open(void)
{
	const char *dir = getenv("PMPI_LOG_DIR");
	char path[PATH_MAX], host[256] = "?";
	int n;

	if (log_tried)
		return;
	log_tried = 1;
	if (!dir || !*dir)
		return;
	PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
	n = snprintf(path, sizeof path, "%s/rank-%d.tsv", dir, world_rank);
	if (n < 0 || (size_t)n >= sizeof path || !(log_fp = fopen(path, "w"))) {
		fprintf(stderr, "pmpi_log: cannot write '%s/rank-%d.tsv': %s\n", dir, world_rank, strerror(errno));
		return;
	}
	setvbuf(log_fp, NULL, _IOFBF, 1 << 20);
	gethostname(host, sizeof host - 1);
	fprintf(log_fp, "# contend-pmpi 2\n# rank\t%d\thost\t%s\tpid\t%ld\tworld_size\t%d\n"
		"t_real_ns\tkind\tcall\tsrc\tdst\ttag\tcomm\tcomm_size\tbytes\troot\tt_exit_ns\tcalls\n",
		world_rank, host, (long)getpid(), comm_size(MPI_COMM_WORLD));
}

static void
log_close(void)
{
	if (!log_fp)
		return;
	span_flush();
	/* the rest of the process is MPI_Finalize's: no exit time */
	pend = (struct span){ "finalize", now_ns(), -1, 1, -1, -1 };
	span_flush();
	fprintf(log_fp, "# mpi_calls\t%llu\tmpi_rows\t%llu\n", span_calls + 1, span_rows);
	if (persist_lost)
		fprintf(log_fp, "# persistent_sends_not_logged\t%lu\n", persist_lost);
	fprintf(log_fp, "# end\n");
	if (fclose(log_fp) != 0)
		fprintf(stderr, "pmpi_log: cannot finish the log of rank %d: %s\n", world_rank, strerror(errno));
	log_fp = NULL;
	PMPI_Group_free(&world_group);
}

/* ---- set-up and end ---- */

/* The log, opened after MPI_Init returned, starts with the interval MPI_Init took. */
static void
log_init(int64_t enter_ns)
{
	if (log_tried)
		return;		/* opened already, by a call before this init's end */
	log_open();
	if (!log_fp)
		return;
	pend = (struct span){ "init", enter_ns, now_ns(), 1, -1, -1 };
	span_calls++;
}

int
MPI_Init(int *argc, char ***argv)
{
	int64_t t0 = now_ns();
	int rc = PMPI_Init(argc, argv);

	if (rc == MPI_SUCCESS)
		log_init(t0);
	return rc;
}

int
MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int64_t t0 = now_ns();
	int rc = PMPI_Init_thread(argc, argv, required, provided);

	if (rc == MPI_SUCCESS)
		log_init(t0);
	return rc;
}

int
MPI_Finalize(void)
{
	log_close();
	return PMPI_Finalize();
}

/* ---- point-to-point sends ---- */

#define SEND_WRAP(NAME, CALL)								\
int											\
MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)	\
{											\
	log_send(CALL, comm, dest, tag, type, count);					\
	return SPAN(CALL, comm, PMPI_##NAME(buf, count, type, dest, tag, comm));	\
}
SEND_WRAP(Send, "send")
SEND_WRAP(Ssend, "ssend")
SEND_WRAP(Bsend, "bsend")
SEND_WRAP(Rsend, "rsend")

#define ISEND_WRAP(NAME, CALL)								\
int											\
MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,	\
	MPI_Request *req)								\
{											\
	log_send(CALL, comm, dest, tag, type, count);					\
	return SPAN(CALL, comm, PMPI_##NAME(buf, count, type, dest, tag, comm, req));	\
}
ISEND_WRAP(Isend, "isend")
ISEND_WRAP(Issend, "issend")
ISEND_WRAP(Ibsend, "ibsend")
ISEND_WRAP(Irsend, "irsend")

#define INIT_WRAP(NAME, CALL)								\
int											\
MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,	\
	MPI_Request *req)								\
{											\
	int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, req);			\
											\
	if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL)					\
		persist_add(*req, CALL, comm, dest, tag, type, count);			\
	return rc;									\
}
INIT_WRAP(Send_init, "send_init")
INIT_WRAP(Ssend_init, "ssend_init")
INIT_WRAP(Bsend_init, "bsend_init")
INIT_WRAP(Rsend_init, "rsend_init")

int
MPI_Start(MPI_Request *req)
{
	log_start(*req);
	return SPAN("start", MPI_COMM_NULL, PMPI_Start(req));
}

int
MPI_Startall(int n, MPI_Request reqs[])
{
	for (int i = 0; i < n; i++)
		log_start(reqs[i]);
	return SPAN("startall", MPI_COMM_NULL, PMPI_Startall(n, reqs));
}

int
MPI_Request_free(MPI_Request *req)
{
	struct persist *p = persist_find(*req);

	if (p)
		p->req = MPI_REQUEST_NULL;
	return PMPI_Request_free(req);
}

int
MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
	int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *st)
{
	log_send("sendrecv", comm, dest, stag, stype, scount);
	return SPAN("sendrecv", comm, PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount,
		rtype, src, rtag, comm, st));
}

int
MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int src,
	int rtag, MPI_Comm comm, MPI_Status *st)
{
	log_send("sendrecv_replace", comm, dest, stag, type, count);
	return SPAN("sendrecv_replace", comm, PMPI_Sendrecv_replace(buf, count, type, dest, stag,
		src, rtag, comm, st));
}

/* ---- receives, probes and completions: intervals only ---- */

int
MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Status *st)
{
	return SPAN("recv", comm, PMPI_Recv(buf, count, type, src, tag, comm, st));
}

int
MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
	return SPAN("irecv", comm, PMPI_Irecv(buf, count, type, src, tag, comm, req));
}

int
MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
	return SPAN("probe", comm, PMPI_Probe(src, tag, comm, st));
}

int
MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st)
{
	return SPAN("iprobe", comm, PMPI_Iprobe(src, tag, comm, flag, st));
}

int
MPI_Wait(MPI_Request *req, MPI_Status *st)
{
	return SPAN("wait", MPI_COMM_NULL, PMPI_Wait(req, st));
}

int
MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
	return SPAN("waitall", MPI_COMM_NULL, PMPI_Waitall(n, reqs, sts));
}

int
MPI_Waitany(int n, MPI_Request reqs[], int *idx, MPI_Status *st)
{
	return SPAN("waitany", MPI_COMM_NULL, PMPI_Waitany(n, reqs, idx, st));
}

int
MPI_Waitsome(int n, MPI_Request reqs[], int *outn, int idx[], MPI_Status sts[])
{
	return SPAN("waitsome", MPI_COMM_NULL, PMPI_Waitsome(n, reqs, outn, idx, sts));
}

int
MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
	return SPAN("test", MPI_COMM_NULL, PMPI_Test(req, flag, st));
}

int
MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
	return SPAN("testall", MPI_COMM_NULL, PMPI_Testall(n, reqs, flag, sts));
}

int
MPI_Testany(int n, MPI_Request reqs[], int *idx, int *flag, MPI_Status *st)
{
	return SPAN("testany", MPI_COMM_NULL, PMPI_Testany(n, reqs, idx, flag, st));
}

int
MPI_Testsome(int n, MPI_Request reqs[], int *outn, int idx[], MPI_Status sts[])
{
	return SPAN("testsome", MPI_COMM_NULL, PMPI_Testsome(n, reqs, outn, idx, sts));
}

/* communicator constructors synchronize the ranks like a collective */
int
MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
	return SPAN("comm_split", comm, PMPI_Comm_split(comm, color, key, out));
}

int
MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
	return SPAN("comm_dup", comm, PMPI_Comm_dup(comm, out));
}

int
MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *out)
{
	return SPAN("comm_create", comm, PMPI_Comm_create(comm, group, out));
}

int
MPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[],
	void *rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm)
{
	return SPAN("alltoallw", comm, PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts,
		rdispls, rtypes, comm));
}

/* ---- collectives (blocking, and the non-blocking ones programs commonly use) ---- */

int
MPI_Barrier(MPI_Comm comm)
{
	log_coll("barrier", comm, -1, 0);
	return SPAN("barrier", comm, PMPI_Barrier(comm));
}

int
MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	log_coll("bcast", comm, root, type_bytes(type, count));
	return SPAN("bcast", comm, PMPI_Bcast(buf, count, type, root, comm));
}

int
MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
	log_coll("reduce", comm, root, type_bytes(type, count));
	return SPAN("reduce", comm, PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm));
}

/* the reductions with every rank's count alike */
#define REDUCE_WRAP(NAME, CALL)								\
int											\
MPI_##NAME(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)	\
{											\
	log_coll(CALL, comm, -1, type_bytes(type, count));				\
	return SPAN(CALL, comm, PMPI_##NAME(sbuf, rbuf, count, type, op, comm));	\
}
REDUCE_WRAP(Allreduce, "allreduce")
REDUCE_WRAP(Scan, "scan")
REDUCE_WRAP(Exscan, "exscan")

int
MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	log_coll("reduce_scatter_block", comm, -1, type_bytes(type, (long long)rcount * comm_size(comm)));
	return SPAN("reduce_scatter_block", comm, PMPI_Reduce_scatter_block(sbuf, rbuf, rcount,
		type, op, comm));
}

int
MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	log_coll("reduce_scatter", comm, -1, type_bytes(type, sum_counts(rcounts, comm_size(comm))));
	return SPAN("reduce_scatter", comm, PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op,
		comm));
}

/* What one rank of an all-to-all sends, in bytes. */
static long long
alltoall_bytes(const void *sbuf, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	long long b = sbuf == MPI_IN_PLACE ? type_bytes(rtype, rcount) : type_bytes(stype, scount);

	return b * comm_size(comm);
}

int
MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
	MPI_Datatype rtype, MPI_Comm comm)
{
	log_coll("alltoall", comm, -1, alltoall_bytes(sbuf, scount, stype, rcount, rtype, comm));
	return SPAN("alltoall", comm, PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype,
		comm));
}

int
MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
	void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
	int n = comm_size(comm);
	long long b = sbuf == MPI_IN_PLACE ? type_bytes(rtype, sum_counts(rcounts, n))
		: type_bytes(stype, sum_counts(scounts, n));

	log_coll("alltoallv", comm, -1, b);
	return SPAN("alltoallv", comm, PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts,
		rdispls, rtype, comm));
}

int
MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
	MPI_Datatype rtype, MPI_Comm comm)
{
	log_coll("allgather", comm, -1, sbuf == MPI_IN_PLACE ? type_bytes(rtype, rcount) : type_bytes(stype, scount));
	return SPAN("allgather", comm, PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype,
		comm));
}

int
MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
	const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
	int me = 0;

	PMPI_Comm_rank(comm, &me);
	log_coll("allgatherv", comm, -1, sbuf == MPI_IN_PLACE ? type_bytes(rtype, rcounts[me]) : type_bytes(stype, scount));
	return SPAN("allgatherv", comm, PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs,
		rtype, comm));
}

int
MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
	MPI_Datatype rtype, int root, MPI_Comm comm)
{
	log_coll("gather", comm, root, sbuf == MPI_IN_PLACE ? type_bytes(rtype, rcount) : type_bytes(stype, scount));
	return SPAN("gather", comm, PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root,
		comm));
}

int
MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
	const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm)
{
	log_coll("gatherv", comm, root, sbuf == MPI_IN_PLACE ? 0 : type_bytes(stype, scount));
	return SPAN("gatherv", comm, PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype,
		root, comm));
}

int
MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
	MPI_Datatype rtype, int root, MPI_Comm comm)
{
	int me = -1;

	PMPI_Comm_rank(comm, &me);
	log_coll("scatter", comm, root, me == root ? type_bytes(stype, (long long)scount * comm_size(comm)) : 0);
	return SPAN("scatter", comm, PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root,
		comm));
}

int
MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
	void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
	int me = -1;

	PMPI_Comm_rank(comm, &me);
	log_coll("scatterv", comm, root, me == root ? type_bytes(stype, sum_counts(scounts, comm_size(comm))) : 0);
	return SPAN("scatterv", comm, PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount,
		rtype, root, comm));
}

int
MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
	log_coll("ibarrier", comm, -1, 0);
	return SPAN("ibarrier", comm, PMPI_Ibarrier(comm, req));
}

int
MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
	log_coll("ibcast", comm, root, type_bytes(type, count));
	return SPAN("ibcast", comm, PMPI_Ibcast(buf, count, type, root, comm, req));
}

int
MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
	MPI_Request *req)
{
	log_coll("iallreduce", comm, -1, type_bytes(type, count));
	return SPAN("iallreduce", comm, PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req));
}

int
MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
	MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
	log_coll("ialltoall", comm, -1, alltoall_bytes(sbuf, scount, stype, rcount, rtype, comm));
	return SPAN("ialltoall", comm, PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype,
		comm, req));
}

#ifdef OPEN_MPI
/* ---- Open MPI's Fortran bindings, which bypass the C MPI_ layer ----
 * Each Fortran entry point exists under five names in libmpi_mpifh (mpi_x, mpi_x_,
 * mpi_x__, MPI_X, and ompi_x_f, which mpi_f08's mpi_x_f08_ calls); one wrapper takes them
 * all and calls the library's pmpi_x_ (the same code) found with dlsym. Signatures: Open
 * MPI 4.1 ompi/mpi/fortran/mpif-h/prototypes_mpi.h. */
typedef MPI_Fint F;	/* a Fortran INTEGER argument, by reference */

static void *
freal(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "pmpi_log: no '%s' in the MPI library\n", name);
		abort();
	}
	return f;
}

/* STMT, the call of the real Fortran entry point, timed as an interval of CALL on COMM */
#define FSPAN(CALL, COMM, STMT) do {							\
	int64_t fspan_t0_ = span_enter();						\
										\
	STMT;										\
	span_exit(CALL, fspan_t0_, COMM);						\
} while (0)

#define FNAMES(low, UP, impl)								\
	extern __typeof__(impl) mpi_##low __attribute__((alias(#impl)));		\
	extern __typeof__(impl) mpi_##low##_ __attribute__((alias(#impl)));		\
	extern __typeof__(impl) mpi_##low##__ __attribute__((alias(#impl)));		\
	extern __typeof__(impl) MPI_##UP __attribute__((alias(#impl)));

static void
flog_send(const char *call, F *comm, F *dest, F *tag, F *type, F *count)
{
	log_send(call, PMPI_Comm_f2c(*comm), *dest, *tag, PMPI_Type_f2c(*type), *count);
}

#define FSEND(low, UP)									\
void ompi_##low##_f(char *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr);	\
void											\
ompi_##low##_f(char *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)	\
{											\
	static __typeof__(ompi_##low##_f) *real;					\
											\
	if (!real)									\
		real = (__typeof__(real))freal("pmpi_" #low "_");			\
	flog_send(#low, comm, dest, tag, type, count);					\
	FSPAN(#low, PMPI_Comm_f2c(*comm), real(buf, count, type, dest, tag, comm, ierr));	\
}											\
FNAMES(low, UP, ompi_##low##_f)
FSEND(send, SEND)
FSEND(ssend, SSEND)
FSEND(bsend, BSEND)
FSEND(rsend, RSEND)

#define FISEND(low, UP)									\
void ompi_##low##_f(char *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr);	\
void											\
ompi_##low##_f(char *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)	\
{											\
	static __typeof__(ompi_##low##_f) *real;					\
											\
	if (!real)									\
		real = (__typeof__(real))freal("pmpi_" #low "_");			\
	flog_send(#low, comm, dest, tag, type, count);					\
	FSPAN(#low, PMPI_Comm_f2c(*comm), real(buf, count, type, dest, tag, comm, req, ierr));	\
}											\
FNAMES(low, UP, ompi_##low##_f)
FISEND(isend, ISEND)
FISEND(issend, ISSEND)
FISEND(ibsend, IBSEND)
FISEND(irsend, IRSEND)

void ompi_sendrecv_f(char *sbuf, F *scount, F *stype, F *dest, F *stag, char *rbuf, F *rcount,
	F *rtype, F *src, F *rtag, F *comm, F *st, F *ierr);
void
ompi_sendrecv_f(char *sbuf, F *scount, F *stype, F *dest, F *stag, char *rbuf, F *rcount,
	F *rtype, F *src, F *rtag, F *comm, F *st, F *ierr)
{
	static __typeof__(ompi_sendrecv_f) *real;

	if (!real)
		real = (__typeof__(real))freal("pmpi_sendrecv_");
	flog_send("sendrecv", comm, dest, stag, stype, scount);
	FSPAN("sendrecv", PMPI_Comm_f2c(*comm),
		real(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, st, ierr));
}
FNAMES(sendrecv, SENDRECV, ompi_sendrecv_f)

void ompi_sendrecv_replace_f(char *buf, F *count, F *type, F *dest, F *stag, F *src, F *rtag,
	F *comm, F *st, F *ierr);
void
ompi_sendrecv_replace_f(char *buf, F *count, F *type, F *dest, F *stag, F *src, F *rtag,
	F *comm, F *st, F *ierr)
{
	static __typeof__(ompi_sendrecv_replace_f) *real;

	if (!real)
		real = (__typeof__(real))freal("pmpi_sendrecv_replace_");
	flog_send("sendrecv_replace", comm, dest, stag, type, count);
	FSPAN("sendrecv_replace", PMPI_Comm_f2c(*comm), real(buf, count, type, dest, stag, src,
		rtag, comm, st, ierr));
}
FNAMES(sendrecv_replace, SENDRECV_REPLACE, ompi_sendrecv_replace_f)

void ompi_finalize_f(F *ierr);
void
ompi_finalize_f(F *ierr)
{
	static __typeof__(ompi_finalize_f) *real;

	if (!real)
		real = (__typeof__(real))freal("pmpi_finalize_");
	log_close();
	real(ierr);
}
FNAMES(finalize, FINALIZE, ompi_finalize_f)

void ompi_init_f(F *ierr);
void
ompi_init_f(F *ierr)
{
	static __typeof__(ompi_init_f) *real;
	int64_t t0 = now_ns();

	if (!real)
		real = (__typeof__(real))freal("pmpi_init_");
	real(ierr);
	if (*ierr == MPI_SUCCESS)
		log_init(t0);
}
FNAMES(init, INIT, ompi_init_f)

void ompi_init_thread_f(F *required, F *provided, F *ierr);
void
ompi_init_thread_f(F *required, F *provided, F *ierr)
{
	static __typeof__(ompi_init_thread_f) *real;
	int64_t t0 = now_ns();

	if (!real)
		real = (__typeof__(real))freal("pmpi_init_thread_");
	real(required, provided, ierr);
	if (*ierr == MPI_SUCCESS)
		log_init(t0);
}
FNAMES(init_thread, INIT_THREAD, ompi_init_thread_f)

void ompi_barrier_f(F *comm, F *ierr);
void
ompi_barrier_f(F *comm, F *ierr)
{
	static __typeof__(ompi_barrier_f) *real;

	if (!real)
		real = (__typeof__(real))freal("pmpi_barrier_");
	log_coll("barrier", PMPI_Comm_f2c(*comm), -1, 0);
	FSPAN("barrier", PMPI_Comm_f2c(*comm), real(comm, ierr));
}
FNAMES(barrier, BARRIER, ompi_barrier_f)

void ompi_bcast_f(char *buf, F *count, F *type, F *root, F *comm, F *ierr);
void
ompi_bcast_f(char *buf, F *count, F *type, F *root, F *comm, F *ierr)
{
	static __typeof__(ompi_bcast_f) *real;

	if (!real)
		real = (__typeof__(real))freal("pmpi_bcast_");
	log_coll("bcast", PMPI_Comm_f2c(*comm), *root, type_bytes(PMPI_Type_f2c(*type), *count));
	FSPAN("bcast", PMPI_Comm_f2c(*comm), real(buf, count, type, root, comm, ierr));
}
FNAMES(bcast, BCAST, ompi_bcast_f)

void ompi_reduce_f(char *sbuf, char *rbuf, F *count, F *type, F *op, F *root, F *comm, F *ierr);
void
ompi_reduce_f(char *sbuf, char *rbuf, F *count, F *type, F *op, F *root, F *comm, F *ierr)
{
	static __typeof__(ompi_reduce_f) *real;

	if (!real)
		real = (__typeof__(real))freal("pmpi_reduce_");
	log_coll("reduce", PMPI_Comm_f2c(*comm), *root, type_bytes(PMPI_Type_f2c(*type), *count));
	FSPAN("reduce", PMPI_Comm_f2c(*comm), real(sbuf, rbuf, count, type, op, root, comm, ierr));
}
FNAMES(reduce, REDUCE, ompi_reduce_f)

void ompi_allreduce_f(char *sbuf, char *rbuf, F *count, F *type, F *op, F *comm, F *ierr);
void
ompi_allreduce_f(char *sbuf, char *rbuf, F *count, F *type, F *op, F *comm, F *ierr)
{
	static __typeof__(ompi_allreduce_f) *real;

	if (!real)
		real = (__typeof__(real))freal("pmpi_allreduce_");
	log_coll("allreduce", PMPI_Comm_f2c(*comm), -1, type_bytes(PMPI_Type_f2c(*type), *count));
	FSPAN("allreduce", PMPI_Comm_f2c(*comm), real(sbuf, rbuf, count, type, op, comm, ierr));
}
FNAMES(allreduce, ALLREDUCE, ompi_allreduce_f)

/* alltoall and allgather: the send side's bytes (an MPI_IN_PLACE send counts as given) */
#define FGATHERLIKE(low, UP, MULT)							\
void ompi_##low##_f(char *sbuf, F *scount, F *stype, char *rbuf, F *rcount, F *rtype,	\
	F *comm, F *ierr);								\
void											\
ompi_##low##_f(char *sbuf, F *scount, F *stype, char *rbuf, F *rcount, F *rtype,	\
	F *comm, F *ierr)								\
{											\
	static __typeof__(ompi_##low##_f) *real;					\
	MPI_Comm c = PMPI_Comm_f2c(*comm);						\
											\
	if (!real)									\
		real = (__typeof__(real))freal("pmpi_" #low "_");			\
	log_coll(#low, c, -1, type_bytes(PMPI_Type_f2c(*stype), *scount) * (MULT));	\
	FSPAN(#low, c, real(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr));	\
}											\
FNAMES(low, UP, ompi_##low##_f)
FGATHERLIKE(alltoall, ALLTOALL, comm_size(c))
FGATHERLIKE(allgather, ALLGATHER, 1)

/* The Fortran calls that only need timing: N arguments, all by reference (none of them has
 * a hidden string length), handed on unchanged. */
#define FARGS2 void *a1, void *a2
#define FARGS3 FARGS2, void *a3
#define FARGS4 FARGS3, void *a4
#define FARGS5 FARGS4, void *a5
#define FARGS6 FARGS5, void *a6
#define FARGS7 FARGS6, void *a7
#define FARGS8 FARGS7, void *a8
#define FARGS9 FARGS8, void *a9
#define FARGS10 FARGS9, void *a10
#define FPASS2 a1, a2
#define FPASS3 FPASS2, a3
#define FPASS4 FPASS3, a4
#define FPASS5 FPASS4, a5
#define FPASS6 FPASS5, a6
#define FPASS7 FPASS6, a7
#define FPASS8 FPASS7, a8
#define FPASS9 FPASS8, a9
#define FPASS10 FPASS9, a10
#define FTIMED(low, UP, N)								\
void ompi_##low##_f(FARGS##N);							\
void											\
ompi_##low##_f(FARGS##N)								\
{											\
	static void (*real)(FARGS##N);							\
											\
	if (!real)									\
		real = (__typeof__(real))freal("pmpi_" #low "_");			\
	FSPAN(#low, MPI_COMM_NULL, real(FPASS##N));					\
}											\
FNAMES(low, UP, ompi_##low##_f)
FTIMED(recv, RECV, 8)
FTIMED(irecv, IRECV, 8)
FTIMED(probe, PROBE, 5)
FTIMED(iprobe, IPROBE, 6)
FTIMED(wait, WAIT, 3)
FTIMED(waitall, WAITALL, 4)
FTIMED(waitany, WAITANY, 5)
FTIMED(waitsome, WAITSOME, 6)
FTIMED(test, TEST, 4)
FTIMED(testall, TESTALL, 5)
FTIMED(testany, TESTANY, 6)
FTIMED(testsome, TESTSOME, 6)
FTIMED(start, START, 2)
FTIMED(startall, STARTALL, 3)
FTIMED(comm_split, COMM_SPLIT, 5)
FTIMED(comm_dup, COMM_DUP, 3)
FTIMED(allgatherv, ALLGATHERV, 9)
FTIMED(alltoallv, ALLTOALLV, 10)
FTIMED(alltoallw, ALLTOALLW, 10)
FTIMED(gather, GATHER, 9)
FTIMED(gatherv, GATHERV, 10)
FTIMED(scatter, SCATTER, 9)
FTIMED(scatterv, SCATTERV, 10)
FTIMED(reduce_scatter, REDUCE_SCATTER, 7)
FTIMED(reduce_scatter_block, REDUCE_SCATTER_BLOCK, 7)
FTIMED(scan, SCAN, 7)
#endif
