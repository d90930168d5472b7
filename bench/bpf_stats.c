// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpf_stats: the in-kernel cost per frame of the BPF program attached to an
 * interface, from the kernel's own accounting (bpf_prog_info's run_time_ns
 * and run_cnt), while a command runs. bench/lab.sh's helper.
 *
 *   bpf_stats IFNAME xdp|egress [--attach OBJ] -- COMMAND [ARG...]
 *
 * With --attach, first loads the BPF object OBJ and attaches its first
 * program to IFNAME's tcx egress through a link, for the command's run (the
 * pass-only baseline of the tcx egress path; ip link attaches XDP ones). Then
 * finds the program on IFNAME (in the caller's network namespace): the XDP
 * program (native or generic), or the tcx egress programs; turns the kernel's
 * statistics on with BPF_ENABLE_STATS, which returns a file descriptor that
 * keeps them on while it is open (so a helper that dies leaves nothing to
 * restore, unlike writing the kernel.bpf_stats_enabled sysctl); reads
 * run_cnt and run_time_ns; runs COMMAND and waits for it; reads them again;
 * closes the descriptor. It prints one line per program:
 *
 *   prog ID NAME runs N ns T ns_per_run X
 *
 * (N and T the increase over the command's run). The kernel times each run
 * with two clock reads, whose own cost (a few ns) is in T. Exit: COMMAND's exit
 * status when all went well, 1 with one sentence on stderr when the program or
 * the statistics cannot be read.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

/* The installed uapi header may predate tcx (Linux 6.6); as user/sources/live_attach.c. */
#define RT_BPF_TCX_EGRESS 47
#define MAX_PROGS 8

struct prog {
	__u32 id;
	int fd;
	char name[BPF_OBJ_NAME_LEN];
	__u64 cnt0, ns0;
};

static int read_stats(struct prog *p, __u64 *cnt, __u64 *ns)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(p->fd, &info, &len))
		return -errno;
	*cnt = info.run_cnt;
	*ns = info.run_time_ns;
	snprintf(p->name, sizeof(p->name), "%s", info.name);
	return 0;
}

/* The ids of the programs attached to ifindex at the hook, or -errno. */
static int find_progs(int ifindex, const char *hook, __u32 *ids)
{
	if (!strcmp(hook, "xdp")) {
		LIBBPF_OPTS(bpf_xdp_query_opts, q);

		if (bpf_xdp_query(ifindex, 0, &q))
			return -errno;
		if (q.drv_prog_id)
			ids[0] = q.drv_prog_id;
		else if (q.skb_prog_id)
			ids[0] = q.skb_prog_id;
		else
			ids[0] = q.prog_id;
		return ids[0] ? 1 : 0;
	} else {
		LIBBPF_OPTS(bpf_prog_query_opts, q, .prog_ids = ids, .prog_cnt = MAX_PROGS);

		if (bpf_prog_query_opts(ifindex, RT_BPF_TCX_EGRESS, &q))
			return errno == ENOENT ? 0 : -errno;
		return (int)q.prog_cnt;
	}
}

/* --attach OBJ: its first program on IFNAME's tcx egress; the link's fd, or -1 after saying why. */
static int attach_obj(const char *path, int ifindex, const char *ifname, struct bpf_object **obj)
{
	struct bpf_program *prog;
	int link;

	*obj = bpf_object__open_file(path, NULL);
	if (!*obj || bpf_object__load(*obj)) {
		fprintf(stderr, "bpf_stats: cannot load %s: %s\n", path, strerror(errno));
		return -1;
	}
	prog = bpf_object__next_program(*obj, NULL);
	link = prog ? bpf_link_create(bpf_program__fd(prog), ifindex, RT_BPF_TCX_EGRESS, NULL) : -ENOENT;
	if (link < 0) {
		fprintf(stderr, "bpf_stats: cannot attach %s to %s's tcx egress: %s\n", path, ifname,
			strerror(prog ? errno : ENOENT));
		return -1;
	}
	return link;
}

/* The programs on IFNAME's hook, opened: how many, or -1 after saying why. */
static int open_progs(int ifindex, const char *ifname, const char *hook, struct prog p[MAX_PROGS])
{
	__u32 ids[MAX_PROGS] = { 0 };
	int n = find_progs(ifindex, hook, ids);

	if (n <= 0) {
		fprintf(stderr, "bpf_stats: no %s program on %s%s%s\n", hook, ifname,
			n < 0 ? ": " : "", n < 0 ? strerror(-n) : "");
		return -1;
	}
	if (n > MAX_PROGS)
		n = MAX_PROGS;
	for (int i = 0; i < n; i++) {
		p[i].id = ids[i];
		p[i].fd = bpf_prog_get_fd_by_id(ids[i]);
		if (p[i].fd < 0) {
			fprintf(stderr, "bpf_stats: cannot open program %u on %s: %s\n", ids[i], ifname,
				strerror(errno));
			while (i--)
				close(p[i].fd);
			return -1;
		}
	}
	return n;
}

/* Each program's counts now into (cnt0, ns0): 0, or -1 after saying why. */
static int stats_start(struct prog *p, int n)
{
	for (int i = 0; i < n; i++)
		if (read_stats(&p[i], &p[i].cnt0, &p[i].ns0)) {
			fprintf(stderr, "bpf_stats: cannot read program %u: %s\n", p[i].id, strerror(errno));
			return -1;
		}
	return 0;
}

/* Each program's runs and time since stats_start, a line each. */
static int stats_print(struct prog *p, int n)
{
	for (int i = 0; i < n; i++) {
		__u64 cnt, ns;

		if (read_stats(&p[i], &cnt, &ns)) {
			fprintf(stderr, "bpf_stats: cannot read program %u: %s\n", p[i].id, strerror(errno));
			return -1;
		}
		cnt -= p[i].cnt0;
		ns -= p[i].ns0;
		printf("prog %u %s runs %llu ns %llu ns_per_run %.1f\n", p[i].id, p[i].name,
		       (unsigned long long)cnt, (unsigned long long)ns,
		       cnt ? (double)ns / (double)cnt : 0.0);
	}
	return 0;
}

/* COMMAND run to its end; its wait status, or -1 after saying why. */
static int run_command(char **argv, int stats_fd)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "bpf_stats: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		close(stats_fd);
		execvp(argv[0], argv);
		fprintf(stderr, "bpf_stats: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "bpf_stats: waitpid: %s\n", strerror(errno));
		return -1;
	}
	return status;
}

int main(int argc, char **argv)
{
	struct prog p[MAX_PROGS];
	int ifindex, n, stats_fd, status, rc = 1, cmd = 4, link = -1;
	struct bpf_object *obj = NULL;
	const char *attach = NULL;

	if (argc >= 6 && !strcmp(argv[3], "--attach")) {
		attach = argv[4];
		cmd = 6;
	}
	if (argc < cmd + 1 || strcmp(argv[cmd - 1], "--") ||
	    (strcmp(argv[2], "xdp") && strcmp(argv[2], "egress")) ||
	    (attach && strcmp(argv[2], "egress"))) {
		fprintf(stderr, "usage: bpf_stats IFNAME xdp|egress [--attach OBJ] -- COMMAND [ARG...]\n"
			"(--attach only with egress)\n");
		return 1;
	}
	ifindex = (int)if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "bpf_stats: no interface %s in this network namespace\n", argv[1]);
		return 1;
	}
	if (attach && (link = attach_obj(attach, ifindex, argv[1], &obj)) < 0) {
		bpf_object__close(obj);
		return 1;
	}
	n = open_progs(ifindex, argv[1], argv[2], p);
	if (n < 0) {
		n = 0;
		goto out_link;
	}
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "bpf_stats: cannot turn on the kernel's BPF statistics "
			"(BPF_ENABLE_STATS: %s); it needs root and Linux 5.8 or later\n",
			strerror(errno));
		goto out_link;
	}
	if (!stats_start(p, n) && (status = run_command(argv + cmd, stats_fd)) >= 0 && !stats_print(p, n))
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	close(stats_fd);	/* the statistics go off with the last such descriptor */
out_link:
	for (int i = 0; i < n; i++)
		close(p[i].fd);
	if (link >= 0)
		close(link);
	bpf_object__close(obj);
	return rc;
}
