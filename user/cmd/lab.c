// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop lab: a RoCEv2 test bed with congestion you can watch, on a machine
 * with no RDMA hardware. Three network namespaces — the senders, a switch (a
 * bridge) and the receiver — joined by veth pairs; rocetop-gen puts a model of
 * a congested switch port on the wire (data from the senders, CNPs, ACKs,
 * NAKs and PFC from the receiver), and rocetop watches the receiver's
 * interface: data on ingress, the receiver's answers on egress.
 *
 *   PREFIX-snd [snd0] ── [sw-snd] PREFIX-sw: br0 [sw-rcv] ── [rcv0] PREFIX-rcv
 *                                                              ^ rocetop -i rcv0
 *
 * With --mirror TYPE the switch also mirrors its congested port (sw-rcv) to a
 * collector: rocetop-gen sends a copy of every frame, wrapped in ERSPAN II,
 * ERSPAN III or VXLAN, out of sw-mir, and rocetop watches the collector with
 * --collector instead of the receiver:
 *
 *   PREFIX-sw [sw-mir] ── [col0] PREFIX-col
 *                           ^ rocetop -i col0 --collector
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cmd.h"
#include "lab_pause.h"
#include "endpoint.h"
#include "fmt.h"
#include "host.h"
#include "cli.h"
#include "log.h"
#include "main_opts.h"
#include "num.h"
#include "source.h"
#include "sflow.h"

extern char **environ;

/* The lab's sFlow stream: the switch's agent sends to rocetop on the
 * receiver namespace's loopback. */
#define LAB_SFLOW_TO "127.0.0.1:6343"

/* --scenario pause-origin: the receiver stops draining 1 s after the
 * traffic starts, for 4 s, on priority 3; the switch pauses its other ports
 * once one has been paused for 2 s (two intervals of the default -d 1). */
#define LAB_PAUSE_AT_NS		1000000000ULL
#define LAB_PAUSE_FOR_NS	4000000000ULL
#define LAB_PAUSE_DELAY_NS	2000000000ULL
#define LAB_PAUSE_PRIO		3

/* --scenario rp-cuts: the generator's incast with a switch port that marks
 * every packet finding any queue (Kmin = Kmax = 0 KB, probability 1) and a
 * receiver that answers every mark with a CNP (no gap): the senders' DCQCN
 * cuts again and again, so CNPs are many and the link stays far from full,
 * with no pause (rocetop(8) TUNING, the reaction point observation). */
static const char *const lab_rp_cuts_args[] = { "--kmin", "0", "--kmax", "0", "--pmax", "1", "--cnp-interval", "0" };

/* Labs side by side: instance k of a name is NAME (k = 1) or NAME-k, each
 * with its namespaces and a lock file holding its owner's pid. */
#define LAB_LOCK_DIR	"/run/rocetop"
#define LAB_INSTANCES	16

struct lab {
	char prefix[32];
	char ns_snd[48], ns_sw[48], ns_rcv[48], ns_col[48];
	const char *scenario;
	const char *mirror;		/* --mirror: erspan2, erspan3 or vxlan; NULL none */
	const char *tally;
	const char *gen;
	double duration;
	double linger;		/* --linger: seconds watched after the traffic stopped */
	double linger_until;	/* CLOCK_MONOTONIC seconds; 0 until the generator ends */
	long rate, senders, seed;
	int sflow;		/* --sflow: the switch exports sFlow to the lab's rocetop */
	long sflow_rate;
	pid_t gen_pid;
	int gen_status;
	int gen_done;
	int made;
	char base[20];		/* --name (16 at most), or rtlab: the prefix is base or base-k */
	int lock_fd;		/* the instance's lock, held while it runs */
	char lock_path[80];
	const char *record;	/* --record DIR: a recording per host */
	pid_t rec[2];		/* the switch's and the senders' recorders */
	struct lab_pause pause;	/* pause-origin's receiver and switch */
	char log_rcv[PATH_MAX], log_sw[PATH_MAX];
};

struct lab_parse {
	struct lab l;
	char **rest;		/* the view's command line */
	int *nrest, max;
	char names[64][40];	/* "--name" of each option handed on */
	int nnames;
};

static int on_value(void *ctx, const struct rt_opt *opt, const char *arg);
static int on_name(void *ctx, const struct rt_opt *opt, const char *arg);

#define P struct lab_parse

/* The lab's own options; rocetop's (user/cmd/main_opts.c) go on to its view. */
static const struct rt_opt lab_opts[] = {
	RT_OPT_SECTION("Lab options"),
	{ 512, "scenario", "NAME", "one of incast, pfc-storm, steady, mixed, pause-origin or\n"
		"rp-cuts (default mixed)\n"
		"  incast:    senders into one receiver through a congested\n"
		"             port: CE marks, CNPs, DCQCN, drops and NAKs\n"
		"  pfc-storm: priority 3 paused by a PFC storm, priority 1 flows on\n"
		"  steady:    uncongested flows, the baseline\n"
		"  mixed:     all of the above on different priorities\n"
		"  pause-origin: steady flows; the receiver stops draining\n"
		"             (PFC XOFF on priority 3 from rcv0, 1 s in, for\n"
		"             4 s) and the switch pauses its other port after\n"
		"             2 s: a storm that spreads (--record, then report)\n"
		"  rp-cuts:   incast whose switch marks every packet that finds\n"
		"             a queue and whose receiver answers every mark with\n"
		"             a CNP: DCQCN cuts again and again, many CNPs, the\n"
		"             link far from full, no pause (report --tune)",
	  RT_CALL(on_value), .off = RT_OFF(P, l.scenario, const char *),
	  .values = "incast pfc-storm steady mixed pause-origin rp-cuts" },
	{ 513, "duration", "S", "stop the traffic after S seconds, then exit (default: run\n"
		"until you quit)",
	  RT_SET_REAL(P, l.duration, RT_NUM_REAL, 0.1, 86400, "give a number between 0.1 and 86400") },
	{ 350, "linger", "S", "after the traffic stops, watch S seconds more before the\n"
		"lab exits (the quiet in which episodes close)",
	  RT_SET_REAL(P, l.linger, RT_NUM_SECONDS, 0, 86400, "give seconds between 0 and 86400") },
	{ 514, "rate", "PPS", "frames per second on the wire, all kinds (default 20000)",
	  RT_SET_LONG_AS(P, l.rate, RT_NUM_REAL, 1, 10000000, "give a number between 1 and 10000000") },
	{ 515, "senders", "N", "senders (default 4)",
	  RT_SET_LONG_AS(P, l.senders, RT_NUM_REAL, 1, 64, "give a number between 1 and 64") },
	{ 516, "seed", "N", "seed of the traffic model (default 1)",
	  RT_SET_LONG_AS(P, l.seed, RT_NUM_REAL, 0, 4294967295.0, "give a number between 0 and 4294967295") },
	{ 517, "tally", "DIR", "write the generator's exact tally of what it sent to DIR",
	  RT_SET_STR(P, l.tally) },
	{ 518, "sflow", NULL, "the switch also exports sFlow (1 in --sflow-rate frames\n"
		"sampled, with its queue depth and delay, drop notifications,\n"
		"counters) and rocetop collects it beside rcv0: the switch\n"
		"port 10.77.0.254:1, estimates marked ~ next to the exact counts",
	  RT_SET_FLAG(P, l.sflow) },
	{ 519, "sflow-rate", "N", "the switch's sampling rate with --sflow (default 64)",
	  RT_SET_LONG_AS(P, l.sflow_rate, RT_NUM_REAL, 1, 1 << 30, "give a number between 1 and 1073741824") },
	{ 520, "name", "PREFIX", "namespace prefix (default rtlab); while a lab of that name\n"
		"runs, the next takes PREFIX-2, PREFIX-3...",
	  RT_CALL(on_name) },
	/* same shape as the rows above: the options table, each option its own words */
	{ 521, "gen", "PATH", "the rocetop-gen binary (default: beside rocetop, else PATH)",
	  RT_SET_STR(P, l.gen) },
	{ 522, "mirror", "TYPE", "erspan2, erspan3 or vxlan: the switch mirrors its congested\n"
		"port to a collector namespace, and rocetop watches the\n"
		"collector (rocetop -i col0 --collector) instead of the\n"
		"receiver: the same flows, inside mirror session 10",
	  RT_CALL(on_value), .off = RT_OFF(P, l.mirror, const char *),
	  .values = "erspan2 erspan3 vxlan" },
	{ 330, "record", "DIR", "record each host into DIR: the receiver (rcv.rtr, the view's\n"
		"-w), the switch (sw.rtr: sw-snd, sw-rcv) and the senders\n"
		"(snd.rtr), named rcv, sw and snd; with pause-origin also\n"
		"what the receiver and the switch sent (rcv.log, sw.log);\n"
		"not with --mirror",
	  RT_SET_STR(P, l.record) },
	RT_OPT_HELP_ENTRY,
	RT_OPT_END,
};

static const struct rt_cli lab_cli = {
	.prog = "rocetop lab",
	.usage =
"Usage: rocetop lab [--scenario NAME] [--duration S] [--rate PPS] [options]\n"
"\n"
"Build a RoCEv2 test bed in network namespaces (senders, a switch, a receiver),\n"
"send modelled traffic with congestion through it, and watch the receiver's\n"
"interface with rocetop. Everything the lab creates is removed when it ends;\n"
"the leftovers of a crashed run are removed at the next start.\n"
"\n",
	.opts = lab_opts,
	.more = rt_main_opts,
	.epilog =
"\n"
"Any rocetop option applies to the view of the lab: --batch, --csv DIR,\n"
"-w FILE, --listen PORT, -D, -d/--interval, -n/--iterations, --xdp-mode...\n"
"\n"
"Examples:\n"
"  rocetop lab                                    the view on mixed congestion\n"
"  rocetop lab --scenario incast --batch -n 5     five text tables of an incast\n"
"  rocetop lab --scenario pfc-storm --duration 10 --csv out -D\n"
"  rocetop lab --scenario incast --sflow          the congested port, seen by sFlow\n"
"  rocetop lab --mirror erspan3                   the same seen by a mirror collector\n",
	.width = 20,
	.long_indent = 2,
};

/* Run a command built from fixed words and our own names; no user text reaches
 * the shell unquoted (names are checked in parse). Returns the exit status. */
static int cmd(int quiet, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cmd(int quiet, const char *fmt, ...)
{
	char line[512];
	char *argv[] = { "sh", "-c", line, NULL };
	posix_spawn_file_actions_t fa;
	va_list ap;
	pid_t pid;
	int st;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pr_debug("lab: %s\n", line);
	posix_spawn_file_actions_init(&fa);
	if (quiet) {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	}
	if (posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int ns_exists(const char *ns)
{
	char path[128];

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	return access(path, F_OK) == 0;
}

/*
 * The generators a killed lab left running in namespace ns (a lab from before
 * PR_SET_PDEATHSIG, or one whose generator outlived it otherwise): processes
 * named rocetop-gen whose network namespace is ns's. Killed, each by its pid.
 */
static void kill_leftover_gens(const char *ns)
{
	char path[PATH_MAX], link[64], want[64], comm[32];
	struct dirent *e;
	struct stat st;
	DIR *d;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	if (stat(path, &st))
		return;
	snprintf(want, sizeof(want), "net:[%llu]", (unsigned long long)st.st_ino);
	d = opendir("/proc");
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		ssize_t n;
		FILE *f;

		if (*end || pid <= 1 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, want))
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		if (strcmp(comm, "rocetop-gen"))
			continue;
		if (kill((pid_t)pid, SIGKILL) == 0)
			pr_info("stopped the traffic generator an earlier lab left running (pid %ld in %s).\n", pid,
				ns);
	}
	closedir(d);
}

/*
 * Take instance prefix's lock: 1 taken, 0 held by a running lab (*owner its
 * pid), -1 on an error (said). flock goes with its owner, kill -9 included,
 * so a free lock means the namespaces of that name, if any, are leftovers.
 */
static int lab_lock(struct lab *l, const char *prefix, long *owner)
{
	struct stat a, b;
	char pid[24];
	ssize_t n;
	int fd;

	snprintf(l->lock_path, sizeof(l->lock_path), LAB_LOCK_DIR "/lab-%s.lock", prefix);
	for (;;) {
		fd = open(l->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0) {
			pr_warn("cannot open the lab's lock file %s: %s.\n", l->lock_path, strerror(errno));
			return -1;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			n = pread(fd, pid, sizeof(pid) - 1, 0);
			pid[n > 0 ? n : 0] = 0;
			*owner = strtol(pid, NULL, 10);
			close(fd);
			return 0;
		}
		/* the file a finishing lab unlinked is not the lock any more */
		if (!fstat(fd, &a) && !stat(l->lock_path, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			break;
		close(fd);
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n) {
		pr_warn("cannot write the lab's lock file %s: %s.\n", l->lock_path, strerror(errno));
		close(fd);
		return -1;
	}
	l->lock_fd = fd;
	return 1;
}

/* The first instance of the lab's name no running lab holds, and its namespaces' names. */
static int lab_claim(struct lab *l)
{
	long owner = 0;
	int k, r;

	if (mkdir(LAB_LOCK_DIR, 0755) && errno != EEXIST) {
		pr_warn("cannot create %s for the lab's lock: %s.\n", LAB_LOCK_DIR, strerror(errno));
		return -1;
	}
	for (k = 1; k <= LAB_INSTANCES; k++) {
		if (k == 1)
			snprintf(l->prefix, sizeof(l->prefix), "%s", l->base);
		else
			snprintf(l->prefix, sizeof(l->prefix), "%s-%d", l->base, k);
		r = lab_lock(l, l->prefix, &owner);
		if (r < 0)
			return -1;
		if (r == 1)
			break;
		pr_debug("lab: %s is running (pid %ld)\n", l->prefix, owner);
	}
	if (k > LAB_INSTANCES) {
		pr_warn("%d labs named %s are running already (the last, pid %ld); stop one or give another --name.\n",
			LAB_INSTANCES, l->base, owner);
		return -1;
	}
	snprintf(l->ns_snd, sizeof(l->ns_snd), "%s-snd", l->prefix);
	snprintf(l->ns_sw, sizeof(l->ns_sw), "%s-sw", l->prefix);
	snprintf(l->ns_rcv, sizeof(l->ns_rcv), "%s-rcv", l->prefix);
	snprintf(l->ns_col, sizeof(l->ns_col), "%s-col", l->prefix);
	return 0;
}

/* Let the instance go: the lock file removed while still held, so no other lab takes a stale one. */
static void lab_unlock(struct lab *l)
{
	if (l->lock_fd <= 0)
		return;
	unlink(l->lock_path);
	close(l->lock_fd);
	l->lock_fd = -1;
}

/* The namespaces of this lab instance: a dead run's (leftovers) or its own
 * at the end, when its lock goes too. */
static void teardown(struct lab *l, int leftovers)
{
	const char *ns[] = { l->ns_snd, l->ns_sw, l->ns_rcv, l->ns_col };
	int i, found = 0;

	for (i = 0; i < 4; i++) {
		if (!ns_exists(ns[i]))
			continue;
		if (leftovers && !found++)
			pr_info("removing the leftovers of an earlier lab run (namespaces %s-*).\n",
				l->prefix);
		if (leftovers)
			kill_leftover_gens(ns[i]);
		cmd(1, "ip netns del %s", ns[i]);
	}
	if (!leftovers)
		lab_unlock(l);
}

static int setup(struct lab *l)
{
	const char *ns[] = { l->ns_snd, l->ns_sw, l->ns_rcv, l->ns_col };
	int i;

	teardown(l, 1);
	l->made = 1;
	for (i = 0; i < (l->mirror ? 4 : 3); i++) {
		if (cmd(0, "ip netns add %s", ns[i]))
			return -1;
		cmd(1, "ip -n %s link set lo up", ns[i]);
		/* No IPv6 chatter (router solicitations, MLD) on the test bed. */
		cmd(1, "ip netns exec %s sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1",
		    ns[i]);
	}
	if (cmd(0, "ip link add snd0 netns %s type veth peer name sw-snd netns %s", l->ns_snd, l->ns_sw) ||
	    cmd(0, "ip link add rcv0 netns %s type veth peer name sw-rcv netns %s", l->ns_rcv, l->ns_sw) ||
	    cmd(0, "ip -n %s link add br0 type bridge", l->ns_sw) ||
	    cmd(0, "ip -n %s link set sw-snd master br0 && ip -n %s link set sw-rcv master br0", l->ns_sw, l->ns_sw) ||
	    cmd(0, "ip -n %s link set br0 up && ip -n %s link set sw-snd up && ip -n %s link set sw-rcv up",
		l->ns_sw, l->ns_sw, l->ns_sw) ||
	    cmd(0, "ip -n %s addr add 10.77.0.1/24 dev snd0 && ip -n %s link set snd0 up", l->ns_snd, l->ns_snd) ||
	    cmd(0, "ip -n %s addr add 10.77.0.2/24 dev rcv0 && ip -n %s link set rcv0 up", l->ns_rcv, l->ns_rcv))
		return -1;
	/* the mirror port: jumbo, so a copy of a full-size frame fits in its wrapping;
	 * the collector has the MAC and address the copies are sent to */
	if (l->mirror &&
	    (cmd(0, "ip link add sw-mir netns %s mtu 9000 type veth peer name col0 netns %s mtu 9000",
		 l->ns_sw, l->ns_col) ||
	     cmd(0, "ip -n %s link set sw-mir up", l->ns_sw) ||
	     cmd(0, "ip -n %s link set col0 address 02:78:00:00:00:02 && ip -n %s addr add 10.78.0.2/24 dev col0 && ip -n %s link set col0 up",
		 l->ns_col, l->ns_col, l->ns_col)))
		return -1;
	return 0;
}

static int enter_netns(const char *ns, int *saved)
{
	char path[128];
	int fd;

	*saved = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		pr_warn("cannot enter the lab's namespace %s: %s.\n", ns, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static const char *find_gen(const char *given, char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n;

	if (given)
		return given;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		snprintf(buf, len, "%s/rocetop-gen", dirname(self));
		if (access(buf, X_OK) == 0)
			return buf;
	}
	return "rocetop-gen";
}

/* argv[n], argv[n + 1], ...: the arguments given, up to a NULL; the new n. */
static int add_args(const char **argv, int n, ...)
{
	const char *a;
	va_list ap;

	va_start(ap, n);
	while ((a = va_arg(ap, const char *)))
		argv[n++] = a;
	va_end(ap);
	return n;
}

/* Start the generator once rocetop is attached, so it counts every frame. */
static int start_gen(struct lab *l)
{
	char dur[32], rate[32], snd[32], seed[32], tdata[80], trcv[80], tmir[80], gbuf[PATH_MAX],
	     sfrate[32];
	const char *argv[48];
	sigset_t all;
	int n;
	pid_t pid, parent;

	snprintf(dur, sizeof(dur), "%g", l->duration > 0 ? l->duration : 86400.0);
	snprintf(rate, sizeof(rate), "%ld", l->rate);
	snprintf(snd, sizeof(snd), "%ld", l->senders);
	snprintf(seed, sizeof(seed), "%ld", l->seed);
	snprintf(tdata, sizeof(tdata), "%s:snd0", l->ns_snd);
	snprintf(trcv, sizeof(trcv), "%s:rcv0", l->ns_rcv);
	n = add_args(argv, 0, find_gen(l->gen, gbuf, sizeof(gbuf)), "--scenario",
		     !strcmp(l->scenario, "pause-origin") ? "steady" : !strcmp(l->scenario, "rp-cuts") ? "incast" :
		     l->scenario, "--tx-data", tdata, "--tx-rcv", trcv, "--sink", l->ns_rcv, "--duration", dur,
		     "--rate", rate, "--senders", snd, "--seed", seed, NULL);
	if (!strcmp(l->scenario, "rp-cuts"))
		for (size_t i = 0; i < sizeof(lab_rp_cuts_args) / sizeof(lab_rp_cuts_args[0]); i++)
			argv[n++] = lab_rp_cuts_args[i];
	if (l->tally)
		n = add_args(argv, n, "--tally", l->tally, NULL);
	if (l->mirror) {
		snprintf(tmir, sizeof(tmir), "%s:sw-mir", l->ns_sw);
		n = add_args(argv, n, "--mirror", l->mirror, "--tx-mirror", tmir, NULL);
	}
	if (l->sflow) {
		snprintf(sfrate, sizeof(sfrate), "%ld", l->sflow_rate);
		/* --sflow-netns: where rocetop runs */
		n = add_args(argv, n, "--sflow", LAB_SFLOW_TO, "--sflow-netns", l->mirror ? l->ns_col : l->ns_rcv,
			     "--sflow-rate", sfrate, NULL);
	}
	argv[n] = NULL;

	parent = getpid();
	pid = fork();
	if (pid < 0) {
		pr_warn("cannot start the traffic generator: %s.\n", strerror(errno));
		return -errno;
	}
	if (pid == 0) {
		int fd;

		/* The generator dies with the lab, kill -9 included: else it runs
		 * on for ever in the namespaces left behind. The lab may
		 * have died before the prctl: then the parent is another. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(1);
		fd = open("/dev/null", O_RDONLY);
		/* The loop blocks the stop signals into its signalfd; the child
		 * must get them. It must not read the view's keys either. */
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		if (fd >= 0)
			dup2(fd, 0);
		/* Under the full-screen view, the generator's chatter would tear
		 * the screen; its exit status still tells the lab how it went. */
		if (isatty(1) && fd >= 0) {
			int null = open("/dev/null", O_WRONLY);

			if (null >= 0)
				dup2(null, 2);
		}
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "rocetop: cannot run the traffic generator %s: %s.\n", argv[0], strerror(errno));
		_exit(127);
	}
	l->gen_pid = pid;
	pr_debug("lab: generator %s started (pid %d)\n", argv[0], pid);
	return 0;
}

/* pause-origin: the receiver that stops draining and the switch that
 * forwards pause, from now (lab_pause.c). */
static int start_pause(struct lab *l)
{
	struct lab_pause_cfg c = {
		.ns_rcv = l->ns_rcv, .rcv_port = "rcv0", .ns_sw = l->ns_sw, .sw_ports = "sw-rcv,sw-snd",
		.rcv_log = l->record ? l->log_rcv : NULL, .sw_log = l->record ? l->log_sw : NULL,
		.prio = LAB_PAUSE_PRIO, .at_ns = LAB_PAUSE_AT_NS, .for_ns = LAB_PAUSE_FOR_NS,
		.delay_ns = LAB_PAUSE_DELAY_NS,
		.end_ns = (__u64)((l->duration > 0 ? l->duration : 86400.0) * 1e9),
	};

	if (strcmp(l->scenario, "pause-origin"))
		return 0;
	return rt_lab_pause_start(&l->pause, &c);
}

static double mono_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int lab_hook(void *arg, int event)
{
	struct lab *l = arg;
	struct timespec settle = { 0, 300 * 1000000L };
	pid_t r;

	if (event == RT_HOOK_READY)
		return start_gen(l) ? -1 : start_pause(l);
	if (l->gen_done)
		return l->linger_until > 0 && mono_secs() >= l->linger_until;
	if (!l->gen_pid)
		return 0;
	r = waitpid(l->gen_pid, &l->gen_status, WNOHANG);
	if (r != l->gen_pid)
		return 0;
	l->gen_done = 1;
	if (!WIFEXITED(l->gen_status) || WEXITSTATUS(l->gen_status)) {
		pr_warn("the traffic generator stopped with %s %d; the lab stops too.\n",
			WIFEXITED(l->gen_status) ? "exit status" : "signal",
			WIFEXITED(l->gen_status) ? WEXITSTATUS(l->gen_status) : WTERMSIG(l->gen_status));
		return 1;
	}
	if (l->linger > 0) {
		pr_info("lab: the traffic stopped; watching %g s more (--linger).\n", l->linger);
		l->linger_until = mono_secs() + l->linger;
		return 0;
	}
	/* Let the last frames cross the veths before the final snapshot. */
	nanosleep(&settle, NULL);
	return 1;
}

static int valid_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 16)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			return 0;
	return 1;
}

/* --scenario, --mirror: one of the option's .values, kept in the field its
 * .off names; else one sentence that lists them. */
static int on_value(void *ctx, const struct rt_opt *opt, const char *arg)
{
	char use[128] = "";
	const char *v = opt->values;
	size_t k, u;

	for (;;) {
		k = strcspn(v, " ");
		if (k == strlen(arg) && !strncmp(v, arg, k)) {
			*(const char **)((char *)ctx + opt->off) = arg;
			return 0;
		}
		u = strlen(use);
		snprintf(use + u, sizeof(use) - u, "%s%.*s", !u ? "" : v[k] ? ", " : " or ", (int)k, v);
		if (!v[k])
			break;
		v += k + 1;
	}
	pr_warn("--%s '%s' is not known: use %s.\n", opt->name, arg, use);
	return -EINVAL;
}

static int on_name(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct lab_parse *pc = ctx;

	(void)opt;
	if (!valid_name(arg)) {
		pr_warn("--name '%s' is not valid: use up to 16 of a-z, 0-9, - and _.\n", arg);
		return -EINVAL;
	}
	snprintf(pc->l.prefix, sizeof(pc->l.prefix), "%s", arg);
	snprintf(pc->l.base, sizeof(pc->l.base), "%s", arg);
	return 0;
}

/* One of rocetop's own options: handed on to the view as --name [arg]. */
static int hand_on(void *ctx, int id, const char *arg)
{
	struct lab_parse *pc = ctx;
	const struct rt_opt *o;

	if (id == 'i' || id == 'r') {
		pr_warn("the lab watches its own interface; %s does not apply to it.\n",
			id == 'i' ? "-i/--interface" : "-r/--read");
		return -EINVAL;
	}
	o = rt_cli_find(rt_main_opts, id);
	if (!o || *pc->nrest + 2 > pc->max || pc->nnames == 64) {
		pr_warn("too many options for the lab's view.\n");
		return -EINVAL;
	}
	snprintf(pc->names[pc->nnames], sizeof(pc->names[0]), "--%s", o->name);
	pc->rest[(*pc->nrest)++] = pc->names[pc->nnames++];
	if (arg)
		pc->rest[(*pc->nrest)++] = (char *)arg;
	return 0;
}

/*
 * The lab's command line: its own options into pc->l, rocetop's into the
 * view's struct rt_opts (watching rcv0, or col0 as a collector). 0, 1 (help
 * shown) or -EINVAL.
 */
static int lab_parse_args(int argc, char **argv, struct lab_parse *pc, struct rt_opts *o)
{
	static char *rest[256];
	int nrest = 0, i, err, first;

	pc->l = (struct lab){ .scenario = "mixed", .rate = 20000, .senders = 4, .seed = 1, .sflow_rate = 64,
			      .lock_fd = -1 };
	snprintf(pc->l.prefix, sizeof(pc->l.prefix), "rtlab");
	snprintf(pc->l.base, sizeof(pc->l.base), "rtlab");
	rest[nrest++] = "rocetop";
	pc->rest = rest;
	pc->nrest = &nrest;
	pc->max = (int)(sizeof(rest) / sizeof(rest[0])) - 4;
	err = rt_cli_parse(&lab_cli, argc, argv, hand_on, pc, &first);
	if (err)
		return err;
	if (pc->l.record && pc->l.mirror) {
		pr_warn("--record records the receiver, the switch and the senders; with --mirror the view is the collector's: give one of them.\n");
		return -EINVAL;
	}
	for (i = first; i < argc && nrest < pc->max; i++)
		rest[nrest++] = argv[i];
	if (pc->l.record) {
		static char w[PATH_MAX];

		snprintf(w, sizeof(w), "%s/rcv.rtr", pc->l.record);
		rest[nrest++] = "-w";
		rest[nrest++] = w;
		rest[nrest++] = "--hostname";
		rest[nrest++] = "rcv";
		snprintf(pc->l.log_rcv, sizeof(pc->l.log_rcv), "%s/rcv.log", pc->l.record);
		snprintf(pc->l.log_sw, sizeof(pc->l.log_sw), "%s/sw.log", pc->l.record);
	}
	rest[nrest++] = "-i";
	rest[nrest++] = pc->l.mirror ? "col0" : "rcv0";
	if (pc->l.mirror)
		rest[nrest++] = "--collector";
	rest[nrest] = NULL;
	return rt_parse_args(nrest, rest, o);
}

/*
 * From here a stop signal must reach the loop's signalfd rather than end
 * the process with the namespaces up: blocked now, it waits while the
 * namespaces are built and the BPF programs load (seconds on a loaded
 * machine), and the loop ends the run as soon as it starts. The
 * generator's child unblocks them again.
 */
static void block_stop_signals(void)
{
	static const int stop[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(stop) / sizeof(stop[0]); i++)
		sigaddset(&set, stop[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* What ends the run, as the banner says it: "after 3 intervals, after 10 s
 * of traffic or on q" (the first of them ends it). */
static const char *lab_end_text(const struct lab *l, const struct rt_opts *o, char *buf, size_t len)
{
	int tui = !o->batch && !o->daemon && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	size_t n = 0;

	buf[0] = '\0';
	if (o->iterations > 0)
		n += (size_t)snprintf(buf, len, "after %ld interval%s, ", o->iterations,
				      o->iterations == 1 ? "" : "s");
	if (l->duration > 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, "after %s of traffic%s%s%s, ", RT_DUR(l->duration),
				      l->linger > 0 ? " and " : "", l->linger > 0 ? RT_DUR(l->linger) : "",
				      l->linger > 0 ? " more" : "");
	if (n >= 2 && n < len)	/* the last comma becomes "or" */
		n -= 2, buf[n] = '\0';
	if (n < len)
		snprintf(buf + n, len - n, "%s%s", n ? " or " : "",
			 tui ? "when you press q" : "on Ctrl-C");
	return buf;
}

static void say_what_runs(const struct lab *l, const struct rt_opts *o)
{
	char end[128];

	lab_end_text(l, o, end, sizeof(end));
	if (l->mirror)
		pr_info("lab: %s, %ld senders, %ld frames/s; the switch mirrors its port to the "
			"receiver (%s, session 10), rocetop watches the collector col0 in %s; "
			"the run ends %s.\n", l->scenario, l->senders, l->rate, l->mirror, l->ns_col, end);
	else
		pr_info("lab: %s, %ld senders, %ld frames/s; rocetop watches rcv0 in %s; the run ends %s.\n",
			l->scenario, l->senders, l->rate, l->ns_rcv, end);
}

/* rocetop in the namespace it watches, the generator started once it is up:
 * 0 or -1. *saved_ns: this process's own namespace, to go back to. */
static int watch(struct lab *l, struct rt_opts *o, int *saved_ns)
{
	/* What the user asked to reach (--listen) stays on the host: its sockets
	 * are made in this namespace, whichever one rocetop then watches. */
	if (rt_endpoint_home_set()) {
		pr_warn("cannot open this process's network namespace: %s.\n", strerror(errno));
		return -1;
	}
	if (enter_netns(l->mirror ? l->ns_col : l->ns_rcv, saved_ns))
		return -1;
	if (l->sflow) {
		/* In the namespace rocetop watches, where the generator sends it. */
		o->sflow_fd = rt_sflow_socket(LAB_SFLOW_TO, 1);
		if (o->sflow_fd < 0)
			return -1;
		o->have_sflow_fd = 1;
		o->sflow = LAB_SFLOW_TO;
	}
	o->hook = lab_hook;
	o->hook_arg = l;
	/* The lab has no RDMA devices and the host's would not match it; a
	 * fixture tree (--sysfs-root) plants the settings a view reads. */
	o->no_nic = !(o->sysfs_root && *o->sysfs_root);
	return rt_run(o) ? -1 : 0;
}

/* One recorder: rocetop itself in namespace ns, on ifs, into DIR/name.rtr. */
static pid_t recorder(const struct lab *l, const char *ns, const char *const *ifs, int nifs, const char *name,
		      double interval)
{
	char path[PATH_MAX], iv[32];
	const char *argv[24];
	const char *rest[] = { "--no-nic", "-D", "-d", iv, "-w", path, "--hostname", name, NULL };
	pid_t parent = getpid(), pid;
	sigset_t none;
	int n = 0, i, fd;

	snprintf(path, sizeof(path), "%s/%s.rtr", l->record, name);
	snprintf(iv, sizeof(iv), "%g", interval);
	argv[n++] = "rocetop";
	for (i = 0; i < nifs; i++) {
		argv[n++] = "-i";
		argv[n++] = ifs[i];
	}
	for (i = 0; rest[i]; i++)
		argv[n++] = rest[i];
	argv[n] = NULL;
	pid = fork();
	if (pid)
		return pid;
	/* it ends (SIGINT: its recording closed) with the lab */
	if (prctl(PR_SET_PDEATHSIG, SIGINT) || getppid() != parent || enter_netns(ns, &fd))
		_exit(1);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
	}
	execv("/proc/self/exe", (char *const *)argv);
	_exit(127);
}

/* --record: the switch's and the senders' recorders, up (their files
 * begun) before the traffic starts. 0 or -1 after saying why. */
static int start_recorders(struct lab *l, double interval)
{
	static const char *const sw[] = { "sw-snd", "sw-rcv" }, *const snd[] = { "snd0" };
	const char *names[] = { "sw", "snd" };
	struct timespec tick = { 0, 100000000L };
	char path[PATH_MAX];
	struct stat st;
	int i, k;

	if (!l->record)
		return 0;
	l->rec[0] = recorder(l, l->ns_sw, sw, 2, "sw", interval);
	l->rec[1] = recorder(l, l->ns_snd, snd, 1, "snd", interval);
	for (i = 0; i < 2; i++)
		for (k = 0;; k++) {
			snprintf(path, sizeof(path), "%s/%s.rtr", l->record, names[i]);
			if (l->rec[i] > 0 && !stat(path, &st) && st.st_size > 0)
				break;
			if (l->rec[i] <= 0 || k == 200 || waitpid(l->rec[i], NULL, WNOHANG) == l->rec[i]) {
				pr_warn("the lab's recorder of %s did not start (%s).\n", names[i], path);
				return -1;
			}
			nanosleep(&tick, NULL);
		}
	return 0;
}

static void stop_recorders(struct lab *l)
{
	int i;

	for (i = 0; i < 2; i++)
		if (l->rec[i] > 0) {
			kill(l->rec[i], SIGINT);
			waitpid(l->rec[i], NULL, 0);
			l->rec[i] = 0;
		}
}

/* Stop the generator, leave the namespace, remove the lab: 1 if anything failed. */
static int finish(struct lab *l, int saved_ns, int fail)
{
	if (l->gen_pid && !l->gen_done) {
		kill(l->gen_pid, SIGTERM);
		waitpid(l->gen_pid, &l->gen_status, 0);
	}
	/* the storm ends with the traffic: its logs then are whole */
	if (rt_lab_pause_stop(&l->pause, !l->gen_done || fail))
		fail = 1;
	stop_recorders(l);
	if (saved_ns >= 0) {
		setns(saved_ns, CLONE_NEWNET);
		close(saved_ns);
	}
	rt_endpoint_home_clear();
	teardown(l, 0);
	if (l->gen_done && (!WIFEXITED(l->gen_status) || WEXITSTATUS(l->gen_status)))
		fail = 1;
	if (l->tally && !fail)
		pr_info("lab: the generator's tally is in %s.\n", l->tally);
	return fail;
}

int rt_lab_main(int argc, char **argv)
{
	static struct lab_parse pc;
	struct lab *l = &pc.l;
	char cmdline[1024];
	struct rt_opts o;
	int err, saved_ns = -1;

	err = lab_parse_args(argc, argv, &pc, &o);
	if (err)
		return err > 0 ? 0 : 2;
	/* The view's recording and CSV name the lab's command line ("lab ..."). */
	o.cmdline = rt_host_options(cmdline, sizeof(cmdline), argc, argv);
	if (geteuid() != 0) {
		pr_warn("the lab creates network namespaces and attaches BPF programs: run it as root (sudo rocetop lab).\n");
		return 1;
	}
	if (lab_claim(l))
		return 1;
	if (l->tally && mkdir(l->tally, 0755) && errno != EEXIST) {
		pr_warn("cannot create the tally directory %s: %s.\n", l->tally, strerror(errno));
		lab_unlock(l);
		return 1;
	}
	block_stop_signals();
	if (setup(l)) {
		pr_warn("cannot build the lab's namespaces and veth pairs (is iproute2 installed?).\n");
		teardown(l, 0);
		return 1;
	}
	say_what_runs(l, &o);
	if (l->record && mkdir(l->record, 0755) && errno != EEXIST) {
		pr_warn("cannot create the recordings' directory %s: %s.\n", l->record, strerror(errno));
		return finish(l, -1, 1) ? 1 : 0;
	}
	if (start_recorders(l, o.interval))
		return finish(l, -1, 1);
	err = watch(l, &o, &saved_ns);
	return finish(l, saved_ns, err ? 1 : 0) ? 1 : 0;
}
