/* agent: one collection agent per rank: where it sits in the job (from the launcher's
 * environment), and the application it runs as its child.
 *
 * Launchers, tried in this order (docs/collect.md lists the variables):
 *   Open MPI  OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK,LOCAL_SIZE}, OMPI_MCA_ess_base_jobid,
 *             PMIX_HOSTNAME
 *   MPICH     (Hydra) PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS,
 *             MPIR_CVAR_CH3_INTERFACE_HOSTNAME
 *   Slurm     SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_TASKS_PER_NODE + SLURM_NODEID,
 *             SLURM_JOB_ID, SLURM_STEP_ID, SLURMD_NODENAME
 *   PMIx      PMIX_RANK, PMIX_NAMESPACE, PMIX_HOSTNAME (size and local rank when also given
 *             by one of the above, else unknown)
 *   none      rank 0 of 1
 * The node name is the launcher's, else gethostname, made distinct per network namespace
 * by agent_netns_host. */
#ifndef COLLECT_AGENT_H
#define COLLECT_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "lib/err.h"

struct agent_env {
	const char *launcher;	/* static string: "openmpi", "mpich", "slurm", "pmix", "none" */
	int rank;		/* world rank */
	int size;		/* world size, -1 unknown */
	int local_rank;		/* rank among the job's processes on this node; -1 unknown */
	bool local_known;	/* the launcher said local_rank (else it is 0 until the agents
				 * of a node elect their leader, collect_cmd.c) */
	int local_size;		/* processes of the job on this node, -1 unknown */
	char job_id[128];	/* launcher's job identity, "" when it gives none */
	char host[256];		/* node name as the launcher knows it, else gethostname */
};

/* Read the launcher's environment (getenv). Returns 0, or -E_FORMAT with e set when a
 * variable is present but malformed (e.g. a rank outside the size). */
int agent_env_detect(struct agent_env *a, struct err *e) WUR;

/* Several "nodes" may share a kernel and a host name in separate network namespaces
 * (the testbed's workstations). When this process is not in the network namespace of
 * pid 1, replace host by the /etc/hosts name of the first up non-loopback IPv4 address,
 * or append "-<address>" when there is none. Unchanged otherwise. */
void agent_netns_host(char *host, size_t hostlen);

/* Parse Slurm's SLURM_TASKS_PER_NODE ("2(x3),1") for node index node_id: the task count,
 * or -1 when malformed or out of range. */
int agent_slurm_tasks_on_node(const char *spec, int node_id);

/* How the application ended. */
struct agent_exit {
	bool ended;		/* reaped */
	int status;		/* raw wait status */
	int exit_code;		/* when it exited, else -1 */
	int signal;		/* terminating signal, else 0 */
	bool core;		/* a core was dumped */
	struct rusage ru;	/* of the application and its reaped descendants */
};

/* Install handlers that forward HUP INT QUIT TERM USR1 USR2 CONT TSTP-as-STOP WINCH ALRM
 * to the child once agent_spawn has started it (signals caught before that are delivered
 * right after), and one for SIGCHLD that only interrupts a sleep (other calls restart).
 * Call once, before agent_spawn. */
void agent_signals_install(void);
/* Signals forwarded so far, as a comma list of names ("TERM,INT"); "" when none. */
void agent_signals_forwarded(char *out, size_t outlen);
/* True once any terminating signal (HUP INT QUIT TERM) reached the agent. */
bool agent_signals_terminating(void);

/* The MPI settings that send messages between ranks of one node over TCP instead of shared
 * memory, each in the libraries' documented configuration variables:
 *   Open MPI (ob1)  OMPI_MCA_btl=tcp,self          the TCP BTL for every peer, no vader/sm
 *   UCX (MPICH ch4:ucx, Open MPI's pml ucx)  UCX_TLS=tcp,self   no shared-memory transports
 *   MPICH           MPIR_CVAR_NOLOCAL=1             every rank treated as on another node
 * Sets them in this process's environment (replacing values the launcher passed), for the
 * child agent_spawn starts, and writes "NAME=VALUE ..." into out. Returns 0, or -E_IO with e
 * set when setenv fails. */
int agent_see_local_env(char *out, size_t outlen, struct err *e) WUR;

/* The agent's own scheduling policy, set once the application has started (which keeps the
 * policy it came with; the agent's own start is not slowed on a busy node). With batch and
 * a normal (SCHED_OTHER) policy, switch every thread of the agent to SCHED_BATCH: the same
 * nice value and CPU share, but a sample or capture wake-up no longer preempts the rank on
 * the CPU (docs/collect.md, "The observer's wake-ups"). Real-time, idle and batch policies
 * are kept. Returns what the agent runs with: "batch", "normal", "as-app" or "unknown". */
const char *agent_observer_policy(bool batch);

/* Start argv[0] (searched in PATH) with argv, the agent's environment and standard
 * streams. Returns 0 with *pid set, or -E_IO with e set when it cannot be executed
 * (errno_out gets the reason). */
int agent_spawn(char *const *argv, pid_t *pid, int *errno_out, struct err *e) WUR;

/* Has the child ended? Without reaping it (so /proc/PID stays readable): 1 when it is a
 * zombie now, 0 when still running, negative with e set on a wait error. */
int agent_child_done(pid_t pid, struct err *e) WUR;
/* Reap the child (blocking) and fill x. 0, or negative with e set. */
int agent_reap(pid_t pid, struct agent_exit *x, struct err *e) WUR;
/* Exit status the agent should return for x: the exit code, or 128+signal. */
int agent_exit_code(const struct agent_exit *x);

#endif
