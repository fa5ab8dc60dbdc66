/* otf2out: write a run as an OTF2 archive with libotf2 (OTF2 3.0 writer API:
 * OTF2_Archive.h, OTF2_EvtWriter.h, OTF2_GlobalDefWriter.h). */
#include "export/otf2out.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "lib/fsutil.h"
#include "lib/xalloc.h"

#define OTF2_MAX_COMMS 256	/* communicators defined; other context ids go to the first */

enum ev_kind { EV_LEAVE, EV_SEND, EV_RECV, EV_ENTER };	/* order of events at one time */

struct ev {
	int64_t t_ns;
	enum ev_kind kind;
	long i;			/* phase index (ENTER, LEAVE) or message index into p.msgs */
};

static int
cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static OTF2_FlushType
pre_flush(void *user, OTF2_FileType ft, OTF2_LocationRef loc, void *cb, bool final)
{
	(void)user, (void)ft, (void)loc, (void)cb, (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush(void *user, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)user, (void)ft, (void)loc;
	return 0;
}

static const OTF2_FlushCallbacks flush_cbs = { .otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush };

const char *
otf2out_lib_version(void)
{
	return "otf2 " OTF2_VERSION;
}

/* Remove an archive left in dir by an earlier export: traces.otf2, traces.def and the
 * .evt and .def files of traces/. Nothing else is touched. */
static void
remove_old(const char *dir)
{
	char *p = xasprintf("%s/traces", dir);
	DIR *d = opendir(p);
	struct dirent *de;

	if (d != NULL) {
		while ((de = readdir(d)) != NULL) {
			size_t n = strlen(de->d_name);

			if (n > 4 && (strcmp(de->d_name + n - 4, ".evt") == 0 || strcmp(de->d_name + n - 4, ".def") == 0)) {
				char *f = xasprintf("%s/%s", p, de->d_name);

				unlink(f);
				free(f);
			}
		}
		closedir(d);
		rmdir(p);
	}
	free(p);
	p = xasprintf("%s/traces.otf2", dir);
	unlink(p);
	free(p);
	p = xasprintf("%s/traces.def", dir);
	unlink(p);
	free(p);
}

/* The communicator index of a context id: cids[] holds the ids seen, index 0 is "world"
 * (context id 0, and every unknown one). */
static int
comm_of(int32_t cid, const int32_t *cids, int ncids)
{
	for (int i = 0; i < ncids; i++)
		if (cids[i] == cid)
			return i;
	return 0;
}

/* String ids: fixed ones first, then one per host, per rank, per communicator, per
 * collective name. */
enum {
	S_EMPTY, S_CLUSTER, S_MACHINE, S_NODE, S_COMPUTING, S_WAITING, S_COMPUTING_D, S_WAITING_D,
	S_COLL, S_COLL_D, S_WIRE, S_WIRE_D, S_WORLD_LOCS, S_MPI, S_FIXED
};

static const char *const fixed_strings[S_FIXED] = {
	"", "cluster", "machine", "node", "computing", "waiting",
	"the rank is busy on its CPUs (contend: a busy phase from the CPU samples)",
	"the rank is idle, waiting (contend: an idle phase from the CPU samples)",
	"collective", "the collective operation the message belongs to (from its tag)",
	"wire_ns", "nanoseconds from the message's first to its last byte on the wire",
	"MPI_COMM_WORLD locations", "MPI",
};

/* Everything but the events: strings, system tree, location groups and locations,
 * regions, attributes, groups and communicators, clock. */
static int
write_defs(OTF2_Archive *ar, const struct xtrace *x, const uint64_t *nevents, const int32_t *cids, int ncids,
	   struct err *e)
{
	OTF2_GlobalDefWriter *w = OTF2_Archive_GetGlobalDefWriter(ar);
	const struct prof *p = &x->p;
	uint32_t s_host = S_FIXED, s_rank = s_host + (uint32_t)x->nhosts, s_comm = s_rank + (uint32_t)p->nranks;
	uint32_t s_name = s_comm + (uint32_t)ncids;
	uint64_t *members;
	OTF2_ErrorCode rc = OTF2_SUCCESS;

	if (w == NULL)
		return err_set(e, E_IO, "libotf2: cannot get the global definition writer");
	for (uint32_t i = 0; i < S_FIXED && rc == OTF2_SUCCESS; i++)
		rc = OTF2_GlobalDefWriter_WriteString(w, i, fixed_strings[i]);
	for (int h = 0; h < x->nhosts && rc == OTF2_SUCCESS; h++)
		rc = OTF2_GlobalDefWriter_WriteString(w, s_host + (uint32_t)h, x->hosts[h]);
	for (int i = 0; i < p->nranks && rc == OTF2_SUCCESS; i++) {
		char name[32];

		snprintf(name, sizeof name, "MPI Rank %d", p->ranks[i].rank);
		rc = OTF2_GlobalDefWriter_WriteString(w, s_rank + (uint32_t)i, name);
	}
	for (int c = 0; c < ncids && rc == OTF2_SUCCESS; c++) {
		char name[48];

		if (c == 0)
			snprintf(name, sizeof name, "MPI_COMM_WORLD");
		else
			snprintf(name, sizeof name, "MPI communicator (context %d)", (int)cids[c]);
		rc = OTF2_GlobalDefWriter_WriteString(w, s_comm + (uint32_t)c, name);
	}
	for (int k = 0; k < p->nnames && rc == OTF2_SUCCESS; k++)
		rc = OTF2_GlobalDefWriter_WriteString(w, s_name + (uint32_t)k, p->names[k]);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000, (uint64_t)x->t0_ns,
							      (uint64_t)(x->t1_ns - x->t0_ns + 1), (uint64_t)x->t0_ns);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteParadigm(w, OTF2_PARADIGM_MPI, S_MPI, OTF2_PARADIGM_CLASS_PROCESS);
	/* system tree: the cluster, then one node per host */
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, S_CLUSTER, S_MACHINE, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	for (int h = 0; h < x->nhosts && rc == OTF2_SUCCESS; h++)
		rc = OTF2_GlobalDefWriter_WriteSystemTreeNode(w, (uint32_t)h + 1, s_host + (uint32_t)h, S_NODE, 0);
	for (int i = 0; i < p->nranks && rc == OTF2_SUCCESS; i++)
		rc = OTF2_GlobalDefWriter_WriteLocationGroup(w, (uint32_t)p->ranks[i].rank, s_rank + (uint32_t)i,
							    OTF2_LOCATION_GROUP_TYPE_PROCESS,
							    (uint32_t)x->host_of[i] + 1,
							    OTF2_UNDEFINED_LOCATION_GROUP);
	for (int i = 0; i < p->nranks && rc == OTF2_SUCCESS; i++)
		rc = OTF2_GlobalDefWriter_WriteLocation(w, (uint64_t)p->ranks[i].rank, s_rank + (uint32_t)i,
						       OTF2_LOCATION_TYPE_CPU_THREAD, nevents[i],
						       (uint32_t)p->ranks[i].rank);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteRegion(w, 0, S_COMPUTING, S_COMPUTING, S_COMPUTING_D,
						     OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
						     OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteRegion(w, 1, S_WAITING, S_WAITING, S_WAITING_D,
						     OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
						     OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteAttribute(w, 0, S_COLL, S_COLL_D, OTF2_TYPE_STRING);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteAttribute(w, 1, S_WIRE, S_WIRE_D, OTF2_TYPE_UINT64);
	/* group 0: the MPI locations in world-rank order; group 1: the world over them, so
	 * that a rank's index in ranks.tsv is its rank in every communicator written */
	members = xcalloc((size_t)p->nranks, sizeof *members);
	for (int i = 0; i < p->nranks; i++)
		members[i] = (uint64_t)p->ranks[i].rank;
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteGroup(w, 0, S_WORLD_LOCS, OTF2_GROUP_TYPE_COMM_LOCATIONS,
						    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)p->nranks, members);
	for (int i = 0; i < p->nranks; i++)
		members[i] = (uint64_t)i;
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteGroup(w, 1, s_comm, OTF2_GROUP_TYPE_COMM_GROUP,
						    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)p->nranks, members);
	free(members);
	for (int c = 0; c < ncids && rc == OTF2_SUCCESS; c++)
		rc = OTF2_GlobalDefWriter_WriteComm(w, (uint32_t)c, s_comm + (uint32_t)c, 1,
						   c == 0 ? OTF2_UNDEFINED_COMM : 0, OTF2_COMM_FLAG_NONE);
	if (rc != OTF2_SUCCESS)
		return err_set(e, E_IO, "libotf2: writing the definitions: %s", OTF2_Error_GetDescription(rc));
	return 0;
}

/* The events of p.ranks[i], in time order. Caller frees; *n set. */
static struct ev *
rank_events(const struct xtrace *x, int i, long *n)
{
	int rank = x->p.ranks[i].rank;
	long k = 0;
	size_t cap = 2 * (size_t)(x->ph_first[i + 1] - x->ph_first[i]) +
		     (size_t)(x->rmsgs_first[i + 1] - x->rmsgs_first[i]) + 1;
	struct ev *ev = xcalloc(cap, sizeof *ev);

	for (long j = x->ph_first[i]; j < x->ph_first[i + 1]; j++) {
		ev[k++] = (struct ev){ .t_ns = x->ph[j].t0_ns, .kind = EV_ENTER, .i = j };
		ev[k++] = (struct ev){ .t_ns = x->ph[j].t1_ns, .kind = EV_LEAVE, .i = j };
	}
	for (long j = x->rmsgs_first[i]; j < x->rmsgs_first[i + 1]; j++) {
		const struct prof_msg *m = &x->p.msgs[x->rmsgs[j]];

		if (m->src == rank)
			ev[k++] = (struct ev){ .t_ns = m->t_ns, .kind = EV_SEND, .i = x->rmsgs[j] };
		else
			ev[k++] = (struct ev){ .t_ns = m->t_last_ns, .kind = EV_RECV, .i = x->rmsgs[j] };
	}
	qsort(ev, (size_t)k, sizeof *ev, cmp_ev);
	*n = k;
	return ev;
}

/* One rank's event file. */
static OTF2_ErrorCode
write_rank(OTF2_Archive *ar, const struct xtrace *x, int i, const int32_t *cids, int ncids, uint32_t s_name,
	   uint64_t *nevents, struct otf2out_stats *st)
{
	OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (uint64_t)x->p.ranks[i].rank);
	OTF2_AttributeList *al = OTF2_AttributeList_New();
	OTF2_ErrorCode rc = OTF2_SUCCESS;
	long n;
	struct ev *ev;

	if (w == NULL || al == NULL) {
		OTF2_AttributeList_Delete(al);
		return OTF2_ERROR_MEM_ALLOC_FAILED;
	}
	ev = rank_events(x, i, &n);
	for (long k = 0; k < n && rc == OTF2_SUCCESS; k++) {
		OTF2_TimeStamp t = (OTF2_TimeStamp)ev[k].t_ns;
		const struct prof_msg *m;
		uint32_t comm;

		switch (ev[k].kind) {
		case EV_ENTER:
			rc = OTF2_EvtWriter_Enter(w, NULL, t, x->ph[ev[k].i].busy ? 0 : 1);
			st->enters++;
			break;
		case EV_LEAVE:
			rc = OTF2_EvtWriter_Leave(w, NULL, t, x->ph[ev[k].i].busy ? 0 : 1);
			break;
		case EV_SEND:
		case EV_RECV:
			m = &x->p.msgs[ev[k].i];
			comm = (uint32_t)comm_of(m->cid, cids, ncids);
			OTF2_AttributeList_RemoveAllAttributes(al);
			if (m->name > 0)
				OTF2_AttributeList_AddStringRef(al, 0, s_name + m->name - 1u);
			OTF2_AttributeList_AddUint64(al, 1, (uint64_t)(m->t_last_ns - m->t_ns));
			/* Open MPI's collective tags are negative: written as their two's complement */
			if (ev[k].kind == EV_SEND) {
				rc = OTF2_EvtWriter_MpiSend(w, al, t, (uint32_t)xtrace_rank(x, m->dst), comm,
							    (uint32_t)m->tag, (uint64_t)m->bytes);
				st->sends++;
			} else {
				rc = OTF2_EvtWriter_MpiRecv(w, al, t, (uint32_t)xtrace_rank(x, m->src), comm,
							    (uint32_t)m->tag, (uint64_t)m->bytes);
				st->recvs++;
			}
			break;
		}
	}
	free(ev);
	OTF2_AttributeList_Delete(al);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_EvtWriter_GetNumberOfEvents(w, &nevents[i]);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_Archive_CloseEvtWriter(ar, w);
	return rc;
}

int
otf2out_write(const struct xtrace *x, const char *dir, struct otf2out_stats *st, struct err *e)
{
	const struct prof *p = &x->p;
	int32_t cids[OTF2_MAX_COMMS];
	int ncids = 1;
	uint64_t *nevents;
	uint32_t s_name = S_FIXED + (uint32_t)x->nhosts + (uint32_t)p->nranks;
	OTF2_Archive *ar;
	OTF2_ErrorCode rc = OTF2_SUCCESS;
	int ret = 0;

	memset(st, 0, sizeof *st);
	cids[0] = 0;
	for (long j = 0; j < x->nmsgs; j++) {
		int32_t c = p->msgs[x->msgs[j]].cid;

		if (c > 0 && ncids < OTF2_MAX_COMMS && comm_of(c, cids, ncids) == 0)
			cids[ncids++] = c;
	}
	st->comms = ncids;
	s_name += (uint32_t)ncids;
	if (fs_mkdir_p(dir, e) < 0)
		return -E_IO;
	remove_old(dir);
	ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
			       OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (ar == NULL)
		return err_set(e, E_IO, "libotf2: cannot create an archive in '%s'", dir);
	nevents = xcalloc((size_t)p->nranks, sizeof *nevents);
	rc = OTF2_Archive_SetFlushCallbacks(ar, &flush_cbs, NULL);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_Archive_SetSerialCollectiveCallbacks(ar);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_Archive_SetCreator(ar, "contend " CONTEND_VERSION);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_Archive_OpenEvtFiles(ar);
	for (int i = 0; i < p->nranks && rc == OTF2_SUCCESS; i++)
		rc = write_rank(ar, x, i, cids, ncids, s_name, nevents, st);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_Archive_CloseEvtFiles(ar);
	/* an empty local definition file per location, as readers look for one */
	if (rc == OTF2_SUCCESS)
		rc = OTF2_Archive_OpenDefFiles(ar);
	for (int i = 0; i < p->nranks && rc == OTF2_SUCCESS; i++) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, (uint64_t)p->ranks[i].rank);

		rc = dw == NULL ? OTF2_ERROR_MEM_ALLOC_FAILED : OTF2_Archive_CloseDefWriter(ar, dw);
	}
	if (rc == OTF2_SUCCESS)
		rc = OTF2_Archive_CloseDefFiles(ar);
	if (rc != OTF2_SUCCESS)
		ret = err_set(e, E_IO, "libotf2: writing the events in '%s': %s", dir, OTF2_Error_GetDescription(rc));
	else
		ret = write_defs(ar, x, nevents, cids, ncids, e);
	rc = OTF2_Archive_Close(ar);
	if (ret == 0 && rc != OTF2_SUCCESS)
		ret = err_set(e, E_IO, "libotf2: closing the archive in '%s': %s", dir, OTF2_Error_GetDescription(rc));
	free(nevents);
	return ret;
}
