// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The job of a process, read from /proc (jobs.h). The layouts named:
 *
 *   Slurm cgroup/v2:  /system.slice/slurmstepd.scope/job_<id>/step_<n>/user/task_<n>
 *   Slurm cgroup/v1:  /slurm/uid_<uid>/job_<id>/step_<n>/task_<n> (per controller)
 *   kubelet, systemd: /kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid>.slice/
 *                     cri-containerd-<id>.scope (guaranteed pods: kubepods-pod<uid>.slice;
 *                     the uid's '-' written '_'; crio-<id>.scope, docker-<id>.scope too)
 *   kubelet, cgroupfs: /kubepods/<qos>/pod<uid>/<id>
 *   systemd:          .../<unit>.service, else .../<name>.scope
 *
 * anything else is named by its cgroup path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "jobs.h"
#include "log.h"
#include "table.h"

struct jent {
	__u32 pid;		/* the key */
	__u32 seen;		/* the interval it was last asked for */
	__u32 row_gen;		/* the interval row was given in */
	__u32 row;		/* its row + 1 in that interval's snapshot */
	__u64 start;		/* /proc/PID/stat's starttime when read */
	int err;		/* -errno: its cgroup could not be read */
	struct rt_job j;
};

struct rt_jobs {
	struct rt_htab t[2];	/* t[cur]: the cache; the other, for sweeps */
	int cur;
	__u32 gen;
	char pods[RT_JOBS_DIR_MAX + 1];
	char containers[RT_JOBS_DIR_MAX + 16];
	char proc[RT_JOBS_DIR_MAX + 1];
};

struct rt_jobs *rt_jobs_new(const char *pods_dir, const char *proc)
{
	struct rt_jobs *J = calloc(1, sizeof(*J));
	char *slash;

	if (!J) {
		pr_warn("out of memory for the jobs' cache.\n");
		return NULL;
	}
	if ((proc && strlen(proc) > RT_JOBS_DIR_MAX) || (pods_dir && strlen(pods_dir) > RT_JOBS_DIR_MAX)) {
		pr_warn("the directory of /proc or of the pods' logs is longer than %d characters.\n", RT_JOBS_DIR_MAX);
		free(J);
		return NULL;
	}
	for (int i = 0; i < 2; i++)
		rt_htab_init(&J->t[i], sizeof(struct jent), sizeof(__u32), RT_JOBS_MAX);
	J->gen = 1;
	snprintf(J->proc, sizeof(J->proc), "%s", proc && *proc ? proc : "/proc");
	snprintf(J->pods, sizeof(J->pods), "%s", pods_dir && *pods_dir ? pods_dir : "/var/log/pods");
	snprintf(J->containers, sizeof(J->containers), "%s", J->pods);
	slash = strrchr(J->containers, '/');
	if (slash && slash != J->containers)
		snprintf(slash, sizeof(J->containers) - (size_t)(slash - J->containers), "/containers");
	else
		snprintf(J->containers, sizeof(J->containers), "containers");
	return J;
}

void rt_jobs_free(struct rt_jobs *J)
{
	if (!J)
		return;
	rt_htab_free(&J->t[0]);
	rt_htab_free(&J->t[1]);
	free(J);
}

size_t rt_jobs_cached(const struct rt_jobs *J, size_t *bytes)
{
	const struct rt_htab *t = &J->t[J->cur];

	if (bytes)
		*bytes = (J->t[0].cap + J->t[1].cap) * (sizeof(struct jent) + sizeof(__u32) + 1);
	return t->n;
}

void rt_jobs_interval(struct rt_jobs *J)
{
	struct rt_htab *t = &J->t[J->cur], *o = &J->t[!J->cur];
	size_t i, keep = 0;

	for (i = 0; i < t->cap; i++)
		if (t->used[i] && ((struct jent *)rt_htab_at(t, i))->seen == J->gen)
			keep++;
	J->gen++;
	if (keep == t->n)
		return;
	/* the pids asked for in the interval that ended move to the other table */
	rt_htab_clear(o);
	for (i = 0; i < t->cap; i++) {
		struct jent *e = rt_htab_at(t, i), *n;

		if (!t->used[i] || e->seen != J->gen - 1)
			continue;
		n = rt_htab_get(o, &e->pid, rt_hash_bytes(&e->pid, sizeof(e->pid)), NULL);
		if (n)
			*n = *e;
	}
	rt_htab_clear(t);
	J->cur = !J->cur;
}

/* ---- reading /proc ---- */

/* A file of /proc opened to read: O_NONBLOCK and a regular file only (a
 * FIFO under --sysfs-root hung the run); an fd, or -errno (-EINVAL: not a
 * regular file). */
static int open_proc(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	int e = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	if (e) {
		close(fd);
		return -e;
	}
	return fd;
}

/* Up to max bytes of a file into a fresh buffer (NUL-terminated): its length,
 * or -errno (a read error too: it is not an empty file). */
static long read_file(const char *path, size_t max, char **out)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1);
	int fd = open_proc(path), e = 0;

	*out = NULL;
	if (fd < 0 || !buf) {
		e = fd < 0 ? -fd : ENOMEM;
		free(buf);
		if (fd >= 0)
			close(fd);
		return -e;
	}
	for (;;) {
		ssize_t k;

		if (len == cap && cap < max) {
			char *nb = realloc(buf, (cap * 2 > max ? max : cap * 2) + 1);

			if (!nb)
				break;
			buf = nb;
			cap = cap * 2 > max ? max : cap * 2;
		}
		if (len == cap)
			break;
		k = read(fd, buf + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			e = errno;
		if (k <= 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	if (e) {
		free(buf);
		return -e;
	}
	buf[len] = '\0';
	*out = buf;
	return (long)len;
}

__u64 rt_jobs_stat_start(const char *text)
{
	unsigned long long v = 0;
	const char *p = strrchr(text, ')');
	int field;

	if (!p)
		return 0;
	/* ") S ppid ...": field 3 is the state */
	for (field = 2; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (sscanf(p, "%llu", &v) != 1)
		return 0;
	return v ? v : 1;
}

/* Field 22 of /proc/PID/stat (after the comm's last ')'): 0 when unreadable. */
static __u64 start_time(const struct rt_jobs *J, __u32 pid)
{
	char path[PATH_MAX], buf[1024];
	ssize_t k;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%u/stat", J->proc, pid) >= sizeof(path) ||
	    (fd = open_proc(path)) < 0)
		return 0;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return 0;
	buf[k] = '\0';
	return rt_jobs_stat_start(buf);
}

/* ---- the layouts ---- */

/* The components of a cgroup path, in place ('/' become NULs): how many. */
#define MAX_PARTS 32
static int split(char *path, char **part)
{
	int n = 0;

	for (char *sp, *p = strtok_r(path, "/", &sp); p && n < MAX_PARTS; p = strtok_r(NULL, "/", &sp))
		part[n++] = p;
	return n;
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void set(char *dst, size_t len, const char *s, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* Slurm: a component naming slurm, then job_<id> [step_<n>]. */
static int slurm(char **part, int n, struct rt_job *j)
{
	int i, named = 0;

	for (i = 0; i < n; i++) {
		if (strstr(part[i], "slurm"))
			named = 1;
		else if (named && starts(part[i], "job_") && part[i][4])
			break;
	}
	if (i == n)
		return 0;
	j->kind = RT_JOB_SLURM;
	set(j->job, sizeof(j->job), part[i] + 4, strlen(part[i] + 4));
	if (i + 1 < n && starts(part[i + 1], "step_"))
		set(j->step, sizeof(j->step), part[i + 1] + 5, strlen(part[i + 1] + 5));
	return 1;
}

/* A pod's uid from kubelet's cgroup name: systemd's "kubepods[-qos]-pod<uid>.slice"
 * (its '-' escaped '_') or cgroupfs' "pod<uid>". */
static int pod_uid(const char *c, char *uid, size_t len)
{
	const char *p = starts(c, "kubepods") ? strstr(c, "-pod") : NULL;
	size_t n;

	if (p)
		p += 4;
	else if (starts(c, "pod"))
		p = c + 3;
	else
		return 0;
	n = ends(p, ".slice") ? strlen(p) - 6 : strlen(p);
	if (!n)
		return 0;
	set(uid, len, p, n);
	for (char *q = uid; *q; q++)
		if (*q == '_')
			*q = '-';
	return 1;
}

/* A container's id from its cgroup name: "<runtime>-<id>.scope" or a bare id. */
static void container_id(const char *c, char *id, size_t len)
{
	static const char *const pre[] = { "cri-containerd-", "crio-", "docker-", "containerd-" };
	size_t n;

	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (starts(c, pre[i])) {
			c += strlen(pre[i]);
			break;
		}
	n = ends(c, ".scope") ? strlen(c) - 6 : strlen(c);
	set(id, len, c, n);
}

static int k8s(char **part, int n, struct rt_job *j)
{
	int i;

	for (i = 0; i < n && !starts(part[i], "kubepods"); i++)
		;
	for (; i < n; i++)
		if (pod_uid(part[i], j->job, sizeof(j->job)))
			break;
	if (i >= n)
		return 0;
	j->kind = RT_JOB_K8S;
	j->step[0] = '\0';
	if (i + 1 < n)
		container_id(part[i + 1], j->step, sizeof(j->step));
	return 1;
}

static int unit(char **part, int n, struct rt_job *j)
{
	static const char *const sfx[] = { ".service", ".scope" };

	for (size_t s = 0; s < 2; s++)
		for (int i = n - 1; i >= 0; i--)
			if (ends(part[i], sfx[s])) {
				j->kind = RT_JOB_UNIT;
				set(j->job, sizeof(j->job), part[i], strlen(part[i]));
				return 1;
			}
	return 0;
}

/* How telling a kind is: a scheduler's over a unit's over a bare cgroup. */
static int rank_of(int kind)
{
	static const int r[RT_JOB__N] = { 0, 5, 5, 3, 2 };

	return kind >= 0 && kind < RT_JOB__N ? r[kind] : 0;
}

/* What one cgroup path says, into j: how telling (rank_of; the root, 1). */
static int classify(const char *path, struct rt_job *j)
{
	char copy[1024], *part[MAX_PARTS];
	int n;

	memset(j, 0, sizeof(*j));
	j->rank = j->size = j->local_rank = -1;
	set(j->cgroup, sizeof(j->cgroup), path, strlen(path));
	set(copy, sizeof(copy), path, strlen(path));
	n = split(copy, part);
	if (n && (slurm(part, n, j) || k8s(part, n, j) || unit(part, n, j)))
		return rank_of(j->kind);
	j->kind = RT_JOB_CGROUP;
	set(j->job, sizeof(j->job), path, strlen(path));
	return n ? rank_of(j->kind) : 1;
}

/* Whether line starts a /proc/PID/cgroup entry ("ID:CONTROLLERS:"): the path's offset, else 0. */
static size_t entry_start(const char *line, size_t n)
{
	size_t i = 0, c;

	while (i < n && line[i] >= '0' && line[i] <= '9')
		i++;
	if (!i || i >= n || line[i] != ':')
		return 0;
	for (c = i + 1; c < n && line[c] != ':' && line[c] != '\n'; c++)
		;
	return c < n && line[c] == ':' ? c + 1 : 0;
}

/* One entry's path judged against the best so far (a v2 entry, "0::", wins ties). */
static void judge(const char *path, int v2, struct rt_job *best, int *best_rank, int *best_v2)
{
	struct rt_job j;
	int r = classify(path, &j);

	if (r > *best_rank || (r == *best_rank && r && v2 && !*best_v2)) {
		*best = j;
		*best_rank = r;
		*best_v2 = v2;
	}
}

void rt_job_from_cgroup(const char *text, size_t len, struct rt_job *j)
{
	char path[1024];
	size_t i = 0, plen = 0;
	int best_rank = 0, best_v2 = 0, v2 = 0, have = 0;

	memset(j, 0, sizeof(*j));
	j->rank = j->size = j->local_rank = -1;
	while (i < len) {
		const char *line = text + i, *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i, at = entry_start(line, n);

		if (at) {
			if (have)
				judge(path, v2, j, &best_rank, &best_v2);
			v2 = n >= 3 && !memcmp(line, "0::", 3);
			plen = 0;
			have = 1;
		} else if (have && plen < sizeof(path) - 1) {
			path[plen++] = '\n';	/* a newline in a cgroup's name */
		}
		if (have) {
			size_t k = n - at < sizeof(path) - 1 - plen ? n - at : sizeof(path) - 1 - plen;

			memcpy(path + plen, line + at, k);
			plen += k;
			path[plen] = '\0';
		}
		i += n + 1;
	}
	if (have)
		judge(path, v2, j, &best_rank, &best_v2);
}

/* The value of environment variable name in env (NUL-separated), or NULL. */
static const char *env_get(const char *env, size_t len, const char *name)
{
	size_t nl = strlen(name);

	for (size_t i = 0; i < len;) {
		const char *v = env + i;
		size_t n = strnlen(v, len - i);

		if (n > nl && v[nl] == '=' && !memcmp(v, name, nl) && i + n < len)
			return v + nl + 1;
		i += n + 1;
	}
	return NULL;
}

/* The first of names set to a number >= 0, else -1. */
static __s32 env_num(const char *env, size_t len, const char *const *names)
{
	for (; *names; names++) {
		const char *v = env_get(env, len, *names);
		char *end;
		long x;

		if (!v || !*v)
			continue;
		errno = 0;
		x = strtol(v, &end, 10);
		if (!*end && !errno && x >= 0 && x <= 0x7fffffff)
			return (__s32)x;
	}
	return -1;
}

void rt_job_from_environ(const char *env, size_t len, struct rt_job *j)
{
	/* rank and size from one launcher, in this order */
	static const char *const ranks[][2] = {
		{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" }, { "PMI_RANK", "PMI_SIZE" },
		{ "PMIX_RANK", NULL }, { "SLURM_PROCID", "SLURM_NTASKS" }, { "RANK", "WORLD_SIZE" },
	};
	static const char *const local[] = { "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
					     "SLURM_LOCALID", "LOCAL_RANK", NULL };
	const char *sj, *ss;

	for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
		const char *r[2] = { ranks[i][0], NULL }, *s[2] = { ranks[i][1], NULL };
		__s32 v = env_num(env, len, r);

		if (v < 0)
			continue;
		j->rank = v;
		j->size = s[0] ? env_num(env, len, s) : -1;
		break;
	}
	j->local_rank = env_num(env, len, local);
	/* a Slurm task outside Slurm's cgroups (no cgroup plugin) */
	sj = env_get(env, len, "SLURM_JOB_ID");
	if (sj && *sj && rank_of(j->kind) < rank_of(RT_JOB_SLURM)) {
		j->kind = RT_JOB_SLURM;
		set(j->job, sizeof(j->job), sj, strlen(sj));
		ss = env_get(env, len, "SLURM_STEP_ID");
		set(j->step, sizeof(j->step), ss ? ss : "", ss ? strlen(ss) : 0);
	}
}

/* ---- Kubernetes names, from the kubelet's log directories ---- */

/* The container's name from DIR/<pod>_<namespace>_<container>-<id>.log, where
 * id starts with the id the cgroup gave (the full id is 64 hex digits). */
static void container_name(const struct rt_jobs *J, const char *ns, const char *pod,
			   const char *id, struct rt_job *j)
{
	char pre[2 * RT_JOB_NAME_LEN + 4];
	size_t lp, li = strlen(id);
	DIR *d = li ? opendir(J->containers) : NULL;
	struct dirent *e;

	if (!d)
		return;
	lp = (size_t)snprintf(pre, sizeof(pre), "%s_%s_", pod, ns);
	while ((e = readdir(d))) {
		const char *dash = strrchr(e->d_name, '-');

		if (strncmp(e->d_name, pre, lp) || !dash || dash <= e->d_name + lp ||
		    strncmp(dash + 1, id, li) || !ends(dash, ".log"))
			continue;
		set(j->step, sizeof(j->step), e->d_name + lp, (size_t)(dash - e->d_name) - lp);
		break;
	}
	closedir(d);
}

/* A pod's uid (j->job) named "namespace/pod" from its DIR/<namespace>_<pod>_<uid>. */
static void pod_name(const struct rt_jobs *J, struct rt_job *j)
{
	size_t lu = strlen(j->job);
	DIR *d = opendir(J->pods);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *u = strrchr(e->d_name, '_'), *p = strchr(e->d_name, '_');
		char ns[RT_JOB_NAME_LEN], pod[RT_JOB_NAME_LEN];

		if (!u || u == p || strlen(u + 1) != lu || strcmp(u + 1, j->job))
			continue;
		set(ns, sizeof(ns), e->d_name, (size_t)(p - e->d_name));
		set(pod, sizeof(pod), p + 1, (size_t)(u - p - 1));
		snprintf(j->job, sizeof(j->job), "%.63s/%.63s", ns, pod);
		container_name(J, ns, pod, j->step, j);
		break;
	}
	closedir(d);
}

/* ---- the cache ---- */

/* Read pid's job now: 0, or -errno when its cgroup file is unreadable. */
/* The missing CAP_SYS_PTRACE, said once a run. */
static int said_ptrace;

static int resolve(const struct rt_jobs *J, __u32 pid, struct rt_job *j)
{
	char path[PATH_MAX], *buf;
	long n;

	if ((size_t)snprintf(path, sizeof(path), "%s/%u/cgroup", J->proc, pid) >= sizeof(path))
		n = -ENAMETOOLONG;
	else
		n = read_file(path, 65536, &buf);
	if (n < 0) {
		memset(j, 0, sizeof(*j));
		j->rank = j->size = j->local_rank = -1;
		return (int)n;
	}
	rt_job_from_cgroup(buf, (size_t)n, j);
	free(buf);
	if (j->kind == RT_JOB_K8S) {
		/* the short id the outputs show, once the name was looked for */
		pod_name(J, j);
		if (strlen(j->step) > 12)
			j->step[12] = '\0';
	}
	snprintf(path, sizeof(path), "%s/%u/environ", J->proc, pid);
	if ((n = read_file(path, RT_JOBS_ENV_MAX, &buf)) >= 0)
		rt_job_from_environ(buf, (size_t)n, j);
	else if ((n == -EACCES || n == -EPERM) && !said_ptrace) {
		said_ptrace = 1;
		pr_warn("the jobs' ranks are off: reading another process's environment (%s) needs CAP_SYS_PTRACE, which rocetop lacks; the jobs from cgroups are still shown.\n",
			path);
	}
	free(buf);
	return 0;
}

static struct jent *lookup(struct rt_jobs *J, __u32 pid)
{
	struct rt_htab *t = &J->t[J->cur];
	__u32 h = rt_hash_bytes(&pid, sizeof(pid));
	__u64 st = start_time(J, pid);
	struct jent *e = rt_htab_find(t, &pid, h);

	if (e && e->seen == J->gen)
		return e;	/* checked in this interval already */
	if (e && (!st || st == e->start)) {
		e->seen = J->gen;	/* the same process, or gone: its job stays */
		return e;
	}
	if (!e && !st)
		return NULL;	/* gone before it was read */
	if (!e && !(e = rt_htab_get(t, &pid, h, NULL)))
		return NULL;	/* the bound: read it every interval */
	e->seen = J->gen;
	e->start = st;
	e->row_gen = 0;
	if ((e->err = resolve(J, pid, &e->j)) < 0)
		e->start = 0;	/* went between the two reads: read again if asked */
	return e;
}

int rt_jobs_get(struct rt_jobs *J, __u32 pid, struct rt_job *out)
{
	struct jent *e = lookup(J, pid);

	if (e) {
		*out = e->j;
		return e->err;	/* a cgroup that cannot be read is not "no job" */
	}
	/* not cached (gone, or past the bound): read directly */
	return start_time(J, pid) ? resolve(J, pid, out) : (resolve(J, pid, out), -ESRCH);
}

__u32 rt_jobs_row(struct rt_jobs *J, __u32 pid, struct rt_snapshot *snap)
{
	struct jent *e = lookup(J, pid);
	struct rt_job j, *row;

	if (e && e->row_gen == J->gen)
		return e->row;
	if (!e && rt_jobs_get(J, pid, &j) < 0)
		return 0;
	if ((e ? e->j.kind : j.kind) == RT_JOB_NONE || !(row = rt_snapshot_add_job(snap)))
		return 0;
	*row = e ? e->j : j;
	if (e) {
		e->row_gen = J->gen;
		e->row = (__u32)snap->njobs;
	}
	return (__u32)snap->njobs;
}
