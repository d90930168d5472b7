/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The job of a process (user/core/job.h), read from /proc: its cgroup from
 * /proc/PID/cgroup (v2, v1, or both on a hybrid host), named by the layout
 * the scheduler gave it (Slurm's cgroup/v1 and cgroup/v2 plugins, kubelet's
 * systemd and cgroupfs drivers, a systemd unit), and its rank from
 * /proc/PID/environ. Kubernetes pods and containers are named from the
 * kubelet's log directories (/var/log/pods, /var/log/containers) when they
 * are there, else by their uid and id.
 *
 * Each pid is read once and cached with its start time (/proc/PID/stat):
 * a pid met again is checked against it each interval, so a reused pid is
 * read afresh, and a process that exited keeps the job it had. The cache
 * holds at most RT_JOBS_MAX pids (a pid past it is read every interval it
 * is asked for); a pid not asked for in an interval is forgotten.
 */
#ifndef RT_NIC_JOBS_H
#define RT_NIC_JOBS_H

#include <stddef.h>
#include <linux/types.h>
#include "job.h"
#include "snapshot.h"

#define RT_JOBS_MAX	4096
#define RT_JOBS_ENV_MAX	(1u << 20)	/* bytes of /proc/PID/environ read at most */
#define RT_JOBS_DIR_MAX	2100		/* the longest proc and pods directory: a
					 * --sysfs-root's 2048 and "/proc" fit */

struct rt_jobs;

/* pods_dir: the kubelet's pod log directory (NULL: /var/log/pods); the
 * containers' links are looked for beside it, in ../containers. proc: where
 * /proc is (NULL: /proc; under --sysfs-root, that root's proc/: a fixture's
 * pids are its own). NULL without memory (said). */
struct rt_jobs *rt_jobs_new(const char *pods_dir, const char *proc);
void rt_jobs_free(struct rt_jobs *J);
/* A new interval: the pids not asked for in the last one are forgotten. */
void rt_jobs_interval(struct rt_jobs *J);
/* The job of pid now: 0 and *out, or -errno when the process is gone and was
 * never read (out then holds kind RT_JOB_NONE). Cached as above. */
int rt_jobs_get(struct rt_jobs *J, __u32 pid, struct rt_job *out);
/* pid's job as a row of snap->jobs (one row per pid and interval): its
 * row + 1 for rt_flow.job, 0 for none. */
__u32 rt_jobs_row(struct rt_jobs *J, __u32 pid, struct rt_snapshot *snap);
/* Cached pids now, and the bytes the cache holds (for the bench). */
size_t rt_jobs_cached(const struct rt_jobs *J, size_t *bytes);

/* Pure (unit-tested): the job named by /proc/PID/cgroup's text; ranks and the
 * Slurm job from environ's text (NUL-separated, len bytes). */
void rt_job_from_cgroup(const char *text, size_t len, struct rt_job *j);
void rt_job_from_environ(const char *env, size_t len, struct rt_job *j);
/* Pure: the start time (field 22) of /proc/PID/stat's text, NUL-terminated;
 * 0 when it has none (1 for a start time of 0). */
__u64 rt_jobs_stat_start(const char *text);

#endif
