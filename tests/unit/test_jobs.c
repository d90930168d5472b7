// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Jobs from /proc texts written by hand as the kernel prints them for each
 * layout (user/nic/jobs.c names them), ranks from environments, the fields
 * the filter reads, and the join carrying a QP's job to its flows.
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "check.h"
#include "job.h"
#include "jobs.h"
#include "join.h"
#include "qp.h"
#include "record.h"
#include "prom.h"
#include "jobagg.h"
#include "findings.h"

#define CG(s) rt_job_from_cgroup(s, sizeof(s) - 1, &j)

static void test_layouts(void)
{
	struct rt_job j;

	CG("0::/system.slice/slurmstepd.scope/job_4711/step_0/user/task_3\n");
	CHECK_EQ(j.kind, RT_JOB_SLURM);
	CHECK(!strcmp(j.job, "4711") && !strcmp(j.step, "0"), "%s %s", j.job, j.step);
	/* a hybrid host: v1 Slurm in freezer, v2 at the root */
	CG("9:freezer:/slurm/uid_1000/job_12/step_batch/task_0\n4:memory:/slurm/uid_1000/job_12/step_batch\n0::/\n");
	CHECK(j.kind == RT_JOB_SLURM && !strcmp(j.job, "12") && !strcmp(j.step, "batch"), "%s %s", j.job, j.step);
	CHECK(!strcmp(j.cgroup, "/slurm/uid_1000/job_12/step_batch/task_0"), "%s", j.cgroup);
	CG("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c_3d4e.slice/"
	   "cri-containerd-0123456789abcdef.scope\n");
	CHECK(j.kind == RT_JOB_K8S && !strcmp(j.job, "1b2c-3d4e") && !strcmp(j.step, "0123456789abcdef"),
	      "%s %s", j.job, j.step);
	CG("0::/kubepods.slice/kubepods-pod9a_8.slice/crio-77.scope\n");
	CHECK(j.kind == RT_JOB_K8S && !strcmp(j.job, "9a-8") && !strcmp(j.step, "77"), "%s %s", j.job, j.step);
	CG("5:cpu:/kubepods/besteffort/podab-cd/ffee\n0::/\n");
	CHECK(j.kind == RT_JOB_K8S && !strcmp(j.job, "ab-cd") && !strcmp(j.step, "ffee"), "%s %s", j.job, j.step);
	CG("0::/system.slice/train.service\n");
	CHECK(j.kind == RT_JOB_UNIT && !strcmp(j.job, "train.service"), "%s", j.job);
	CG("0::/user.slice/user-0.slice/session-4.scope\n");
	CHECK(j.kind == RT_JOB_UNIT && !strcmp(j.job, "session-4.scope"), "%s", j.job);
	CG("0::/lab/a b,c\n");
	CHECK(j.kind == RT_JOB_CGROUP && !strcmp(j.job, "/lab/a b,c"), "%s", j.job);
	/* a newline in a cgroup's name continues the path on the next line */
	CG("0::/system.slice/odd\nname.service\n");
	CHECK(j.kind == RT_JOB_UNIT && !strcmp(j.job, "odd\nname.service"), "%s", j.job);
	CG("0::/\n");
	CHECK(j.kind == RT_JOB_CGROUP && !strcmp(j.job, "/"), "%s", j.job);
	CG("");
	CHECK_EQ(j.kind, RT_JOB_NONE);
	TEST_END("jobs: cgroup layouts");
}

#define ENV(s) rt_job_from_environ(s, sizeof(s) - 1, &j)

static void test_environ(void)
{
	struct rt_job j;

	CG("0::/\n");
	ENV("PATH=/bin\0RANK=7\0WORLD_SIZE=16\0LOCAL_RANK=3\0");
	CHECK(j.rank == 7 && j.size == 16 && j.local_rank == 3, "%d %d %d", j.rank, j.size, j.local_rank);
	CG("0::/\n");
	ENV("SLURM_PROCID=5\0SLURM_NTASKS=6\0OMPI_COMM_WORLD_RANK=2\0OMPI_COMM_WORLD_SIZE=4\0"
	    "SLURM_JOB_ID=99\0SLURM_STEP_ID=1\0SLURM_LOCALID=0\0");
	CHECK(j.rank == 2 && j.size == 4 && j.local_rank == 0, "%d %d %d", j.rank, j.size, j.local_rank);
	CHECK(j.kind == RT_JOB_SLURM && !strcmp(j.job, "99") && !strcmp(j.step, "1"), "%s %s", j.job, j.step);
	/* the cgroup's Slurm job stands; junk ranks are no ranks */
	CG("0::/system.slice/slurmstepd.scope/job_1/step_2\n");
	ENV("SLURM_JOB_ID=99\0PMI_RANK=x1\0RANK=-1\0RANK_X=3\0RANK");
	CHECK(j.kind == RT_JOB_SLURM && !strcmp(j.job, "1") && j.rank == -1, "%s %d", j.job, j.rank);
	TEST_END("jobs: ranks from the environment");
}

static void test_fields(void)
{
	struct rt_job j;
	char buf[256];

	CG("0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-2.scope\n");
	snprintf(j.job, sizeof(j.job), "ns/pod");
	j.rank = 4;
	CHECK(!strcmp(rt_job_field(&j, "pod"), "ns/pod") && !strcmp(rt_job_field(&j, "unit"), ""),
	      "pod %s", rt_job_field(&j, "pod"));
	CHECK(!strcmp(rt_job_field(&j, "rank"), "4") && !strcmp(rt_job_field(&j, "size"), ""), "rank");
	CHECK(rt_job_field(&j, "nope") == NULL && !strcmp(rt_job_field(NULL, "job"), ""), "unknown");
	CHECK(!strcmp(rt_job_label(&j, buf, sizeof(buf)), "k8s:ns/pod/2"), "%s", buf);
	TEST_END("jobs: fields and labels");
}

/* A QP's job row reaches the flows it owns, and leaves with the QP. */
static void test_join(void)
{
	struct rt_snapshot s;
	struct rt_qp q[1];
	struct rt_qp_table t = { .q = q, .n = 1, .cap = 1 };
	struct rt_flow *f;
	struct rt_job *j;

	rt_snapshot_init(&s);
	memset(q, 0, sizeof(q));
	q[0].lqpn = 17, q[0].rqpn = 0x33, q[0].has_rqpn = 1, q[0].pid = 42, q[0].type = 2;
	f = rt_snapshot_add_flow(&s);
	f->k.dir = RT_DIR_EGRESS, f->k.family = 4, f->k.dqpn = 0x33, f->v.pkts = 1;
	j = rt_snapshot_add_job(&s);
	snprintf(j->job, sizeof(j->job), "4711");
	j->kind = RT_JOB_SLURM;
	q[0].job = 1;
	rt_join(&s, &t);
	CHECK(s.flows[0].job == 1 && rt_snapshot_job(&s, &s.flows[0]) == &s.jobs[0], "job %u", s.flows[0].job);
	s.flows[0].job = 2;	/* out of range: none */
	CHECK(rt_snapshot_job(&s, &s.flows[0]) == NULL, "range");
	rt_snapshot_free(&s);
	TEST_END("jobs: the join carries a QP's job");
}

/* A recording keeps the jobs table and each flow's row in it. */
static void test_record(void)
{
	struct rt_snapshot s, o;
	unsigned char *buf = NULL;
	size_t len = 0;
	struct rt_job *j;

	rt_snapshot_init(&s);
	rt_snapshot_init(&o);
	rt_snapshot_add_flow(&s)->job = 2;
	rt_snapshot_add_job(&s);
	j = rt_snapshot_add_job(&s);
	j->kind = RT_JOB_K8S, j->rank = 3, j->size = 8;
	snprintf(j->job, sizeof(j->job), "ns/p o,d\n");
	snprintf(j->cgroup, sizeof(j->cgroup), "/kubepods.slice/x");
	CHECK(!rt_rec_encode(&s, &buf, &len), "encode");
	CHECK(!rt_rec_decode_own(buf, len, &o), "decode");
	CHECK(o.njobs == 2 && o.nflows == 1 && o.flows[0].job == 2, "njobs %zu", o.njobs);
	CHECK(o.njobs == 2 && !memcmp(&o.jobs[1], j, sizeof(*j)) && o.jobs[0].rank == -1, "job differs");
	free(buf);
	rt_snapshot_free(&s);
	rt_snapshot_free(&o);
	TEST_END("jobs: recorded and read back");
}

/* 71 flows, flow i with i CE-marked packets, of job 1000 + i / per (rank
 * i % per); flow 70 has no job. */
static void seventy(struct rt_snapshot *s, int per)
{
	for (int i = 0; i < 71; i++) {
		struct rt_flow *f = rt_snapshot_add_flow(s);
		struct rt_job *j;

		f->k.family = 4, f->k.src[3] = 1, f->k.dst[3] = 2, f->k.dqpn = (__u32)i + 1;
		f->v.pkts = 100, f->v.ecn[RT_ECN_CE] = (__u64)i, f->v.bytes = 1000;
		if (i == 70)
			continue;
		j = rt_snapshot_add_job(s);
		j->kind = RT_JOB_SLURM, j->rank = i % per;
		snprintf(j->job, sizeof(j->job), "%d", 1000 + i / per);
		snprintf(j->step, sizeof(j->step), "0");
		f->job = (__u32)s->njobs;
	}
	rt_snapshot_sort(s);
}

/* The exporter's per-job family: the 64 most congested jobs of 70 exported. */
static void test_prom_jobs(void)
{
	struct rt_snapshot s;
	struct rt_delta d = { 0 };
	struct rt_prom_render *r = rt_prom_render_new(10, 0);
	char *t = NULL, *o = NULL, *at;
	size_t tl = 0, ol = 0, n = 0;

	rt_snapshot_init(&s);
	seventy(&s, 1);	/* 70 jobs: the 6 with the least CE (1000..1005) left out */
	CHECK(!rt_delta_compute(&d, NULL, &s), "delta");
	CHECK(!rt_prom_render(r, &s, &d, &t, &tl, &o, &ol), "render");
	if (getenv("JOBS_DEBUG") && t)
		fputs(t, stdout);
	for (at = t; (at = strstr(at, "\nrocetop_job_packets_total{")); at++)
		n++;
	CHECK_EQ(n, 64);
	CHECK(t && strstr(t, "rocetop_job_packets_total{job_kind=\"slurm\",job_name=\"1006\"} 100\n"), "job 1006");
	CHECK(t && !strstr(t, "job_name=\"1005\""), "job 1005 left out");
	CHECK(t && strstr(t, "rocetop_job_ecn_packets_total{job_kind=\"slurm\",job_name=\"1069\",ecn=\"ce\"} 69\n"),
	      "job 1069's CE");
	CHECK(t && strstr(t, "rocetop_jobs_unexported 6\n"), "unexported");
	/* the shares: 71 flows of 100 data packets into one destination, flow
	 * i with i CE (one of no job): each job 1/71 of the load, culprit 1/71;
	 * job 10xx got xx CE, 70/71 of them others' load (jobagg.h) */
	for (int k = 0; k < 2; k++) {
		const char *name = k ? "\nrocetop_job_victim_ratio{" : "\nrocetop_job_culprit_ratio{";
		double want = k ? 70.0 / 71 : 1.0 / 71;
		size_t m = 0, right = 0;

		for (at = t; at && (at = strstr(at, name)); at++) {
			const char *v = strstr(at, "} ");

			m++;
			right += v && fabs(strtod(v + 2, NULL) - want) < 1e-15;
		}
		CHECK(m == 64 && right == 64, "%s: %zu samples, %zu right", name + 1, m, right);
	}
	CHECK(o && strstr(o, "# UNIT rocetop_job_culprit_ratio ratio\n"), "OpenMetrics unit");
	free(t);
	free(o);
	rt_prom_render_free(r);
	rt_delta_free(&d);
	rt_snapshot_free(&s);
	TEST_END("jobs: the exporter's per-job family");
}

/* --group-by job and process: sums and ranks per key. */
static void test_groups(void)
{
	struct rt_snapshot s;
	struct rt_jobagg a;
	char buf[64];
	size_t n;

	rt_snapshot_init(&s);
	seventy(&s, 8);
	rt_jobagg_init(&a, RT_GROUP_JOB);
	for (size_t i = 0; i < s.nflows; i++)
		rt_jobagg_add(&a, &s, &s.flows[i], &s.flows[i].v);
	n = rt_jobagg_sorted(&a);
	CHECK_EQ(n, 10);
	CHECK(n == 10 && !strcmp(a.order[0]->key, "slurm:1007") && a.order[0]->ce == 56 + 57 + 58 + 59 + 60 + 61 + 62 + 63,
	      "%s", n ? a.order[0]->key : "");
	CHECK(n == 10 && !strcmp(rt_fmt_ranks(a.order[0]->ranks, a.order[0]->nranks, buf, sizeof(buf)), "0-7"), "%s", buf);
	/* CE: 1007 476, 1006 412, 1008 399, ..., 1001 92, "-" 70, 1000 28 */
	CHECK(n == 10 && !strcmp(a.order[2]->key, "slurm:1008") && a.order[2]->flows == 6, "1008");
	CHECK(n == 10 && !strcmp(rt_fmt_ranks(a.order[2]->ranks, a.order[2]->nranks, buf, sizeof(buf)), "0-5"), "%s", buf);
	CHECK(n == 10 && !strcmp(a.order[8]->key, "-") && a.order[8]->flows == 1, "%s", a.order[8]->key);
	rt_jobagg_free(&a);
	rt_snapshot_free(&s);
	TEST_END("jobs: flows folded by job");
}

/* A finding about a flow names its owner's job and rank. */
static void test_findings(void)
{
	struct rt_snapshot s;
	struct rt_delta d = { 0 };
	struct rt_findings F;
	struct rt_find_cfg cfg;
	int named = 0, bare = 0;

	rt_find_cfg_defaults(&cfg);
	cfg.speed_mbps = 100000;
	rt_findings_init(&F, &cfg, &rt_rules);
	rt_snapshot_init(&s);
	seventy(&s, 8);
	CHECK(!rt_delta_compute(&d, NULL, &s), "delta");
	d.secs = 1;
	CHECK(!rt_findings_eval(&F, &s, &d), "eval");
	for (size_t i = 0; i < F.nev; i++) {
		const char *e = F.ev[i].f.evidence;

		if (strcmp(F.ev[i].f.rule, "congestion"))
			continue;
		named += strstr(e, "QP 70 (job slurm:1008.0 rank 5):") != NULL;
		bare += strstr(e, "QP 71: CE") != NULL;
	}
	CHECK(named == 1 && bare == 1, "named %d, bare %d", named, bare);
	rt_findings_free(&F);
	rt_delta_free(&d);
	rt_snapshot_free(&s);
	TEST_END("jobs: findings name the job and rank");
}

/* ---- a pid reused: in a pid namespace of the test's own, where
 * /proc/sys/kernel/ns_last_pid hands the same pid out again ---- */

static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* A child that waits in cgroup dir until killed: its pid (-1 on failure). */
static pid_t child_in(const char *dir)
{
	char path[300], pid[16];
	pid_t p = fork();

	if (!p) {
		pause();
		_exit(0);
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", p);
	return p > 0 && !put(path, pid) ? p : -1;
}

static const char *unit_of(struct rt_jobs *J, pid_t p, char *buf, size_t len)
{
	struct rt_job j;

	snprintf(buf, len, "%s", rt_jobs_get(J, (__u32)p, &j) < 0 ? "(gone)" : j.job);
	return buf;
}

/* pid 1 of the namespace: process A in a.service, gone; B given A's pid in b.service. */
static int reuse_init(const char *a, const char *b)
{
	struct rt_jobs *J = rt_jobs_new(NULL, NULL);
	char u[RT_JOB_NAME_LEN], last[16];
	pid_t pa, pb;
	int bad = 0;

	if (mount("proc", "/proc", "proc", 0, NULL) || !J || (pa = child_in(a)) < 0)
		return printf("  could not set up: %m\n"), fflush(stdout), 1;
	rt_jobs_interval(J);
	bad |= strcmp(unit_of(J, pa, u, sizeof(u)), "rt-reuse-a.service") != 0;
	printf("  A (pid %d) alive: %s\n", pa, u);
	kill(pa, SIGKILL);
	waitpid(pa, NULL, 0);
	bad |= strcmp(unit_of(J, pa, u, sizeof(u)), "rt-reuse-a.service") != 0;
	printf("  A gone, the same interval: %s\n", u);
	usleep(30000);	/* starttime counts clock ticks: B starts ticks later */
	snprintf(last, sizeof(last), "%d", pa - 1);
	if (put("/proc/sys/kernel/ns_last_pid", last) || (pb = child_in(b)) != pa)
		return printf("  pid %d was not handed out again\n", pa), fflush(stdout), 1;
	rt_jobs_interval(J);
	bad |= strcmp(unit_of(J, pb, u, sizeof(u)), "rt-reuse-b.service") != 0;
	printf("  B given pid %d, the next interval: %s\n", pb, u);
	kill(pb, SIGKILL);
	waitpid(pb, NULL, 0);
	rt_jobs_free(J);
	fflush(stdout);	/* _exit follows */
	return bad;
}

static void test_reuse(void)
{
	char root[200] = "", a[300], b[340], line[512];
	FILE *m = fopen("/proc/mounts", "r");
	pid_t p;
	int st = -1;

	while (m && fgets(line, sizeof(line), m))
		if (sscanf(line, "%*s %199s cgroup2", root) == 1 && strstr(line, " cgroup2 "))
			break;
		else
			root[0] = '\0';
	if (m)
		fclose(m);
	snprintf(a, sizeof(a), "%s/rt-reuse-%d", root, getpid());
	snprintf(b, sizeof(b), "%s/rt-reuse-b.service", a);
	CHECK(root[0] && !mkdir(a, 0755) && !mkdir(b, 0755), "cgroups under %s (needs root)", root);
	snprintf(a + strlen(a), sizeof(a) - strlen(a), "/rt-reuse-a.service");
	CHECK(!mkdir(a, 0755), "%s", a);
	p = fork();
	if (!p) {
		if (unshare(CLONE_NEWPID | CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(2);
		if (!(p = fork()))
			_exit(reuse_init(a, b));
		waitpid(p, &st, 0);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 3);
	}
	waitpid(p, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the reused pid's job (status %d)", st);
	rmdir(a);
	rmdir(b);
	*strrchr(a, '/') = '\0';
	rmdir(a);
	TEST_END("jobs: a pid reused by another process is read afresh; one gone keeps its job");
}

/*
 * An incast names whom it hits. Coming in (a receiver's view, the flows'
 * owners the receiving ranks): one job's ranks ("onto ranks 0-7 of job ..."),
 * or several jobs each with its ranks and share of the data packets, largest
 * first, at most 4. Going out (a sender's view): the job when all are one
 * job's, nothing for several.
 */
static void test_incast(void)
{
	static const struct { int egress, jobs; const char *want; } rounds[] = {
		{ 0, 1, "at once onto ranks 0-7 of job slurm:4712: 0.0.0.10 (50%)" },
		/* 7 flows of 4712 (ranks 0-6), 1 of 4713 (rank 7), 100 data packets each */
		{ 0, 2, "at once onto job slurm:4712 ranks 0-6 (88%), job slurm:4713 rank 7 (12%): 0.0.0.10" },
		/* six jobs: the four largest (4700 with 3 flows first), then "..." */
		{ 0, 6, "at once onto job slurm:4700 ranks 0,6-7 (38%), job slurm:4701 rank 1 (12%), "
			"job slurm:4702 rank 2 (12%), job slurm:4703 rank 3 (12%), ...: 0.0.0.10" },
		{ 1, 1, "at once (job slurm:4712 ranks 0-7): 0.0.0.10" },
		{ 1, 2, "at once: 0.0.0.10" },
	};
	struct rt_find_cfg cfg;
	int found[5] = { 0 };

	rt_find_cfg_defaults(&cfg);
	cfg.speed_mbps = 100000;
	for (size_t round = 0; round < 5; round++) {
		struct rt_snapshot s;
		struct rt_delta d = { 0 };
		struct rt_findings F;

		rt_findings_init(&F, &cfg, &rt_rules);
		rt_snapshot_init(&s);
		for (int i = 0; i < 8; i++) {
			struct rt_flow *f = rt_snapshot_add_flow(&s);
			struct rt_job *j = rt_snapshot_add_job(&s);
			int id = 4712;

			f->k.family = 4, f->k.src[3] = (__u8)(10 + i), f->k.dst[3] = 2, f->k.dqpn = 17;
			f->k.dir = rounds[round].egress ? RT_DIR_EGRESS : RT_DIR_INGRESS;
			f->v.pkts = 100, f->v.ecn[RT_ECN_CE] = 50, f->v.ecn[RT_ECN_ECT0] = 50;
			j->kind = RT_JOB_SLURM, j->rank = i;
			if (rounds[round].jobs == 2 && i == 7)
				id = 4713;
			else if (rounds[round].jobs == 6)
				id = i < 6 ? 4700 + i : 4700;
			snprintf(j->job, sizeof(j->job), "%d", id);
			f->job = (__u32)s.njobs;
		}
		rt_snapshot_sort(&s);
		CHECK(!rt_delta_compute(&d, NULL, &s), "delta");
		d.secs = 1;
		CHECK(!rt_findings_eval(&F, &s, &d), "eval");
		for (size_t i = 0; i < F.nev; i++)
			if (!strcmp(F.ev[i].f.rule, "incast")) {
				found[round] += strstr(F.ev[i].f.evidence, rounds[round].want) != NULL;
				if (!strstr(F.ev[i].f.evidence, rounds[round].want))
					fprintf(stderr, "  round %zu: %s\n", round, F.ev[i].f.evidence);
			}
		CHECK(found[round] == 1, "round %zu: %s", round, rounds[round].want);
		rt_findings_free(&F);
		rt_delta_free(&d);
		rt_snapshot_free(&s);
	}
	TEST_END("jobs: an incast names the jobs it hits (a receiver's view) or the one it comes from (a sender's)");
}

int main(void)
{
	test_incast();
	test_reuse();
	test_findings();
	test_prom_jobs();
	test_groups();
	test_record();
	test_layouts();
	test_environ();
	test_fields();
	test_join();
	return TEST_EXIT();
}
