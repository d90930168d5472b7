// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live source's hold on its interfaces: the BPF programs live.c loaded,
 * attached through links (XDP on ingress, tcx on egress), so even `kill -9`
 * leaves nothing attached. Before Linux 6.6 there is no tcx: egress goes
 * through a TC filter on a clsact qdisc, which is not a link and outlives a
 * killed process; rocetop marks its filter (its handle, priority and program
 * name), removes it at exit, and removes one a dead rocetop left at the next
 * start. An interface deleted and created again is attached again (the link
 * watcher, on rtnetlink's link events).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "rocetop.skel.h"
#include "caps.h"
#include "live_int.h"
#include "log.h"

/* Older uapi headers lack the tcx attach types; the kernel (6.6+) knows them. */
#define RT_BPF_TCX_INGRESS 46
#define RT_BPF_TCX_EGRESS  47

/* Whether this process holds what attaching needs; if not, say which
 * capabilities it lacks (user/core/caps.h). */
int rt_live_privileged(void)
{
	__u64 lacks = rt_caps_attach_lacks(rt_caps_effective(), rt_caps_last());
	char names[128];

	if (!lacks)
		return 1;
	pr_warn("attaching the BPF programs needs %s, which this process lacks: run rocetop as root, or grant %s (podman run --cap-add, the capabilities in dist/kubernetes/rocetop-daemonset.yaml).\n",
		rt_caps_names(lacks, names, sizeof(names)), lacks & (lacks - 1) ? "them" : "it");
	return 0;
}

/* The XDP program on i through a link in one mode (flags): 0, or -errno. */
static int link_xdp(struct live *l, struct live_if *i, __u32 flags, const char *mode)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = flags);
	int fd = bpf_link_create(bpf_program__fd(l->xdp_prog), i->ifindex, BPF_XDP, &opts);

	if (fd < 0)
		return -errno;
	i->xdp_link = fd;
	i->mode = mode;
	return 0;
}

static int attach_xdp(struct live *l, struct live_if *i, int want_mode)
{
	int err;

	if (want_mode != 2) {
		err = link_xdp(l, i, XDP_FLAGS_DRV_MODE, "native");
		if (!err)
			return 0;
		if (err == -EBUSY || err == -EEXIST)
			goto busy;
		if (want_mode == 1) {
			pr_warn("cannot attach XDP in native mode to %s: %s; try without --xdp-mode=native.\n",
				i->name, strerror(-err));
			return err;
		}
		pr_info("%s: native XDP not available (%s), falling back to generic XDP.\n",
			i->name, strerror(-err));
	}
	err = link_xdp(l, i, XDP_FLAGS_SKB_MODE, "generic");
	if (!err)
		return 0;
	if (err == -EBUSY || err == -EEXIST)
		goto busy;
	if (err == -EINVAL)	/* BPF_LINK_CREATE knows no XDP before 5.9 */
		pr_warn("cannot attach XDP to %s through a BPF link (%s): Linux 5.9 or later has XDP links; --no-ingress counts egress alone.\n",
			i->name, strerror(-err));
	else
		pr_warn("cannot attach XDP to %s: %s; this interface or kernel has no XDP support (--no-ingress counts egress alone).\n",
			i->name, strerror(-err));
	return err;
busy:
	/* A program attached through a BPF link (another rocetop, an XDP tool)
	 * cannot be removed with `ip link set dev X xdp off`: name its owner. */
	pr_warn("another XDP program is already attached to %s, possibly another rocetop holding it through a BPF link; 'bpftool net show dev %s' names it (and 'bpftool link' its owner): stop that program, or detach it ('ip link set dev %s xdp off' works only without a link), and run rocetop again, or count egress alone with --no-ingress.\n",
		i->name, i->name, i->name);
	return -EBUSY;
}

/*
 * rocetop's TC filter, where there is no tcx: on the clsact qdisc's egress
 * hook, at this handle and priority, running a program named rt_tc or
 * rt_tc_split. All three together are the mark by which a later rocetop
 * knows a filter as its own.
 */
#define RT_TC_HANDLE	0x7274
#define RT_TC_PRIO	0x7274

/* Whether a process holds BPF program id open (its fdinfo names it). */
static pid_t prog_holder(__u32 id)
{
	char path[2 * 256 + 32], line[128];
	struct dirent *p, *f;
	DIR *proc = opendir("/proc"), *fds;
	pid_t found = 0;

	while (proc && !found && (p = readdir(proc))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fdinfo", p->d_name);
		fds = opendir(path);
		while (fds && !found && (f = readdir(fds))) {
			FILE *in;
			unsigned int got;

			if (f->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", p->d_name, f->d_name);
			in = fopen(path, "r");
			while (in && fgets(line, sizeof(line), in))
				if (sscanf(line, "prog_id: %u", &got) == 1 && got == id) {
					found = (pid_t)atoi(p->d_name);
					break;
				}
			if (in)
				fclose(in);
		}
		if (fds)
			closedir(fds);
	}
	if (proc)
		closedir(proc);
	return found;
}

/*
 * A filter at rocetop's handle and priority on i's egress hook: removed when
 * it runs rocetop's program and no process holds that program (a rocetop
 * killed before it could remove it). Returns 0 when the place is free now,
 * -EBUSY when a running rocetop has it, -EEXIST when another program does.
 */
static int clear_stale_filter(struct live_if *i, struct bpf_tc_hook *hook)
{
	LIBBPF_OPTS(bpf_tc_opts, q, .handle = RT_TC_HANDLE, .priority = RT_TC_PRIO);
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	pid_t holder;
	int fd;

	if (bpf_tc_query(hook, &q))
		return 0;	/* nothing there */
	memset(&info, 0, sizeof(info));
	fd = bpf_prog_get_fd_by_id(q.prog_id);
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    (strcmp(info.name, "rt_tc") && strcmp(info.name, "rt_tc_split"))) {
		if (fd >= 0)
			close(fd);
		pr_warn("%s: another program (id %u, '%s') holds the TC filter place rocetop uses on egress (handle 0x%x, priority 0x%x): 'tc filter show dev %s egress' lists it; remove it, or use --no-egress.\n",
			i->name, q.prog_id, info.name, RT_TC_HANDLE, RT_TC_PRIO, i->name);
		return -EEXIST;
	}
	close(fd);
	holder = prog_holder(q.prog_id);
	if (holder) {
		pr_warn("%s: another rocetop (pid %d) counts egress here through its TC filter: stop it, or use --no-egress.\n",
			i->name, (int)holder);
		return -EBUSY;
	}
	q.flags = q.prog_fd = q.prog_id = 0;
	if (bpf_tc_detach(hook, &q) == 0)
		pr_info("%s: removed the TC filter a stopped rocetop left on egress.\n", i->name);
	return 0;
}

static int attach_tc_filter(struct live *l, struct live_if *i)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)i->ifindex, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = RT_TC_HANDLE, .priority = RT_TC_PRIO,
		    .prog_fd = bpf_program__fd(l->tc_prog));
	int err = bpf_tc_hook_create(&hook);

	if (err && err != -EEXIST) {
		pr_warn("%s: cannot add a clsact qdisc for the egress program (%s): egress is not counted.\n",
			i->name, strerror(-err));
		return err;
	}
	err = clear_stale_filter(i, &hook);
	if (err)
		return err;
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		pr_warn("%s: cannot attach the egress program as a TC filter (%s): egress is not counted.\n",
			i->name, strerror(-err));
		return err;
	}
	i->tc_filter = 1;
	return 0;
}

/* rocetop's own filter off i's egress hook (the clsact qdisc stays: other
 * filters may be on it). */
void rt_live_detach_tc_filter(struct live_if *i)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)i->ifindex, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = RT_TC_HANDLE, .priority = RT_TC_PRIO);

	if (i->tc_filter)
		bpf_tc_detach(&hook, &opts);
	i->tc_filter = 0;
}

/* Egress: a tcx link where the kernel has tcx (6.6+), else a TC filter. */
static int attach_tc(struct live *l, struct live_if *i)
{
	int prog = bpf_program__fd(l->tc_prog), fd = -1;

	if (!l->no_tcx) {
		fd = bpf_link_create(prog, i->ifindex, RT_BPF_TCX_EGRESS, NULL);
		if (fd >= 0) {
			i->tc_link = fd;
			return 0;
		}
		if (errno != EINVAL) {
			pr_warn("%s: cannot attach the egress program through tcx (%s): egress is not counted (--no-egress avoids it).\n",
				i->name, strerror(errno));
			return -errno;
		}
		/* EINVAL: the kernel knows no tcx attach type */
		pr_info("no tcx in this kernel (Linux 6.6 has it): egress goes through a TC filter on a clsact qdisc, removed at exit.\n");
		l->no_tcx = 1;
	}
	return attach_tc_filter(l, i);
}

/*
 * Interfaces that vanish and return. A deleted interface takes its XDP and
 * tcx links with it; an interface of that name created later has a new
 * ifindex and nothing attached. The watcher reads rtnetlink link events
 * (RTMGRP_LINK) at every interval; on any event (or a lost one) it compares
 * each watched name with the ifindex the kernel has for it now, says what
 * changed on stderr, marks the interface "gone" in the snapshot (the view,
 * the notes, Prometheus' rocetop_interface_up) and re-attaches when the name
 * returns, into the same counter slot.
 */
static int link_events(struct live *l)
{
	char buf[8192];
	int any = 0;

	if (l->nl_fd < 0)
		return 0;
	for (;;) {
		ssize_t n = recv(l->nl_fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n > 0) {
			any = 1;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {	/* events lost: look anyway */
			any = 1;
			continue;
		}
		return any;
	}
}

static void detach(struct live_if *f)
{
	f->tc_filter = 0;	/* went with the interface */
	if (f->tc_link >= 0)
		close(f->tc_link);
	if (f->xdp_link >= 0)
		close(f->xdp_link);
	f->tc_link = f->xdp_link = -1;
}

void rt_live_watch_links(struct live *l)
{
	int i;

	if (!link_events(l))
		return;
	for (i = 0; i < l->nifs; i++) {
		struct live_if *f = &l->ifs[i];
		__u32 now = if_nametoindex(f->name);

		if (!f->gone && now == f->ifindex)
			continue;
		if (!f->gone) {
			pr_warn("%s has disappeared (deleted, renamed or moved to another namespace): it is not counted until an interface of that name returns.\n",
				f->name);
			detach(f);
			f->gone = 1;
			f->mode = "gone";
		}
		if (!now)
			continue;
		{
			__u32 old = f->ifindex, slot = (__u32)i;
			rt_ifslot_set(l->skel, old, now, slot);
		}
		f->ifindex = now;
		if (l->nifs == 1)	/* before the program runs there */
			rt_one_if_set(l->skel, now, (__u32)i);
		if ((!l->no_ingress && attach_xdp(l, f, l->xdp_mode)) ||
		    (!l->no_egress && attach_tc(l, f) && l->no_ingress)) {
			pr_warn("%s is back (ifindex %u) but cannot be attached again.\n", f->name, now);
			detach(f);
			f->mode = "gone";
			continue;
		}
		if (l->no_ingress)
			f->mode = "tc-only";
		f->gone = 0;
		pr_warn("%s is back (ifindex %u): attached again, counting from here.\n", f->name, now);
	}
}

/* XDP on ingress and TC on egress of every interface, as asked. 0 or -1
 * (said by attach_xdp / attach_tc). */
int rt_live_attach_all(struct live *l, const struct rt_live_cfg *c)
{
	int i;

	for (i = 0; i < l->nifs; i++) {
		if (!c->no_ingress && attach_xdp(l, &l->ifs[i], c->xdp_mode))
			return -1;
		if (c->no_ingress)
			l->ifs[i].mode = "tc-only";
		if (!c->no_egress && attach_tc(l, &l->ifs[i]) && c->no_ingress)
			return -1;
		pr_debug("attached to %s (ifindex %u, XDP %s)\n", l->ifs[i].name, l->ifs[i].ifindex,
			 l->ifs[i].mode);
	}
	if (c->collector)
		pr_info("collector: XDP counts and drops ERSPAN, GRE and VXLAN mirror copies on %s; "
			"every other frame passes.\n", l->source);
	return 0;
}

/* Link events (RTMGRP_LINK), for rt_live_watch_links: an interface deleted and back. */
void rt_live_watch_link_events(struct live *l)
{
	l->nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (l->nl_fd >= 0) {
		struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };

		if (bind(l->nl_fd, (struct sockaddr *)&sa, sizeof(sa))) {
			close(l->nl_fd);
			l->nl_fd = -1;
		}
	}
	if (l->nl_fd < 0)
		pr_warn("cannot watch link events (%s): a deleted interface will go unnoticed.\n",
			strerror(errno));
}
