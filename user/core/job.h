/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Jobs: who a flow's process works for. The chain (rocetop(8), JOBS):
 * flow -> QP (rdma netlink) -> pid ->
 * cgroup -> job (a Slurm job and step, a Kubernetes pod and container, a
 * systemd unit, or the plain cgroup), and the rank from the process's
 * environment. The /proc reader lives above the core (user/nic/jobs.c); the
 * type lives here because every floor shows it.
 *
 * A snapshot holds a table of jobs (struct rt_snapshot.jobs), one row per
 * process that owned a QP in the interval; a flow names its row by index
 * (struct rt_flow.job: row + 1, 0 for none), so no flow carries strings.
 */
#ifndef RT_JOB_H
#define RT_JOB_H

#include <stddef.h>
#include <linux/types.h>

enum rt_job_kind {
	RT_JOB_NONE = 0,	/* nothing known (the process was gone before it was read) */
	RT_JOB_SLURM,		/* job: the job id; step: the step (0, batch, extern, ...) */
	RT_JOB_K8S,		/* job: namespace/pod (or the pod's uid); step: the container */
	RT_JOB_UNIT,		/* job: the systemd unit (a .service, else a .scope) */
	RT_JOB_CGROUP,		/* job: the cgroup path itself */
	RT_JOB__N
};

#define RT_JOB_NAME_LEN	128
#define RT_JOB_STEP_LEN	64
#define RT_JOB_CGROUP_LEN 256

/* One process's attribution (recorded: user/core/record.c names its fields). */
struct rt_job {
	__u8  kind;		/* enum rt_job_kind */
	__u8  pad[3];
	__s32 rank;		/* -1: not in the environment (or it was unreadable) */
	__s32 size;		/* world size, -1: not known */
	__s32 local_rank;	/* -1: not known */
	char  job[RT_JOB_NAME_LEN];
	char  step[RT_JOB_STEP_LEN];
	char  cgroup[RT_JOB_CGROUP_LEN];	/* the path the job was read from ("" if none) */
};

/* What --group-by folds flows by (the batch view). */
enum rt_group {
	RT_GROUP_FLOW = 0,	/* no folding */
	RT_GROUP_JOB,		/* kind and job: a Slurm job, a pod, a unit, a cgroup */
	RT_GROUP_POD,		/* Kubernetes pods (other flows under "") */
	RT_GROUP_UNIT,		/* systemd units (other flows under "") */
	RT_GROUP_PROCESS,	/* pid and comm */
	RT_GROUP_RANK,		/* kind, job and rank: "kind:job#rank" ("#-" without one) */
	RT_GROUP__N
};

/* "flow", "job", "pod", "unit", "process", "rank"; rt_group_parse: -1 for another name. */
const char *rt_group_name(int g);
int rt_group_parse(const char *s);

/* "slurm", "k8s", "unit", "cgroup" ("" for none). */
const char *rt_job_kind_name(unsigned kind);
/*
 * One named field of a job, for the filter language and the outputs: "job"
 * (the job's name: a Slurm job id, namespace/pod, a unit, a cgroup path),
 * "pod" (Kubernetes only), "unit" (systemd only), "slurm" (Slurm's job id
 * only), "step", "kind", "cgroup", "rank", "size", "local_rank" (decimal; ""
 * when not known). "" for a field the job lacks, NULL for an unknown name;
 * j NULL (no job) gives "" for every known name. The text stays valid until
 * the next call in the same thread (numbers) or as long as j (the rest).
 */
const char *rt_job_field(const struct rt_job *j, const char *name);
/* The job as one short label ("slurm:4711.0", "k8s:ns/pod/ctr", "unit:x.service",
 * "cgroup:/a/b"); "" for none. Returns buf. */
char *rt_job_label(const struct rt_job *j, char *buf, size_t len);
/* The same job (kind, job and step), ranks aside: the --group-by job key. */
int rt_job_same(const struct rt_job *a, const struct rt_job *b);

/* A flow's key under --group-by g: "kind:job" (RT_GROUP_JOB), the pod or
 * unit ("-" for flows without one), "comm/pid" ("-" without an owner), "" for
 * RT_GROUP_FLOW. Returns buf. */
#define RT_JOB_KEY_LEN	(RT_JOB_NAME_LEN + 16)
char *rt_job_group_key(const struct rt_job *j, int group, __u32 pid, const char *comm, char *buf,
		       size_t len);
/* The hash of a key of RT_JOB_KEY_LEN bytes, zero after its text: of the text
 * alone (a key is hashed once per flow and interval; most are short). */
__u32 rt_job_key_hash(const char *key);
/* Ranks as ranges, sorted and once each ("0-3,8"; "" for none); ranks is sorted in place. */
char *rt_fmt_ranks(__s32 *ranks, size_t n, char *buf, size_t len);

#endif
