// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Per-QP NIC counters from rdma netlink statistics (NETLINK_RDMA, nldev), as
 * iproute2's `rdma statistic qp ...` reads and sets them:
 *   RDMA_NLDEV_CMD_STAT_GET dump, STAT_RES = RES_QP, per port
 *       -> DEV_INDEX, DEV_NAME, STAT_COUNTER { STAT_COUNTER_ENTRY { PORT_INDEX,
 *          STAT_COUNTER_ID, STAT_HWCOUNTERS { HWCOUNTER_ENTRY { NAME, VALUE } ... },
 *          RES_QP { RES_QP_ENTRY { RES_LQPN } ... } } ... } (a message may
 *          hold several counters; a port with none answers only NLMSG_DONE)
 *   RDMA_NLDEV_CMD_STAT_GET doit, STAT_RES = RES_QP and STAT_MODE (any value:
 *          without it the kernel answers EINVAL), per port
 *       -> STAT_MODE, STAT_AUTO_MODE_MASK (auto mode), STAT_OPCOUNTER_ENABLED
 *   RDMA_NLDEV_CMD_STAT_GET_STATUS doit, per port
 *       -> STAT_HWCOUNTERS { HWCOUNTER_ENTRY { NAME, HWCOUNTER_INDEX,
 *          HWCOUNTER_DYNAMIC (only optional counters: 1 enabled) } ... }
 *   RDMA_NLDEV_CMD_STAT_SET doit: the auto binding mode of a port, or the set
 *          of optional counters enabled (STAT_HWCOUNTERS { HWCOUNTER_INDEX ... })
 * Parsing and building are pure functions over bytes; the socket is behind
 * struct rt_nl_io so the tests see every message sent (tests/unit/test_nic_stat.c).
 * Each request carries the attributes, in the order, of the iproute2 command
 * that does the same (`rdma statistic qp mode`, `... qp show link D/P`,
 * `... qp set link D/P auto type on|off`, `... qp unbind link D/P cntn C lqpn Q`,
 * `... mode supported link D/P`): tests/nic/test_qp_counters_iproute2.sh
 * compares the bytes of both.
 *
 * --qp-counters keeps what it must put back in a state file (rt_qpc_state_dir(),
 * /run/rocetop by default) before it changes anything, and removes it once
 * restored; a later start finding a file whose process is gone restores it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include "nic.h"
#include "nlattr.h"

/* Newer than some uapi headers: the attribute after RDMA_NLDEV_SYS_ATTR_MONITOR_MODE,
 * six after RDMA_NLDEV_ATTR_RES_SUBTYPE (DEV_TYPE, PARENT_NAME, NAME_ASSIGN_TYPE,
 * EVENT_TYPE, SYS_ATTR_MONITOR_MODE come between). */
#define ATTR_OPCOUNTER_ENABLED	(RDMA_NLDEV_ATTR_RES_SUBTYPE + 6)

/* ---- the per-QP counter table ---- */

void rt_qpc_table_free(struct rt_qpc_table *t)
{
	free(t->b);
	free(t->r);
	memset(t, 0, sizeof(*t));
}

static struct rt_qpc_row *qpc_add(struct rt_qpc_table *t)
{
	return rt_append((void **)&t->r, &t->n, &t->cap, sizeof(*t->r));
}

#define MAX_HW 128

/* One bound counter: the attributes of a STAT_COUNTER_ENTRY. */
static int counter_entry(struct rt_qpc_table *t, __u32 dev_index, const char *dev, const void *attrs,
			 size_t alen)
{
	__u32 port = 0, id = 0, lqpn = 0, nqps = 0;
	struct { char name[64]; __u64 v; } hw[MAX_HW];
	size_t nhw = 0, nb = 0;
	__u32 qps[MAX_HW];
	int has_id = 0;

	FOR_ATTR(a, attrs, alen) {
		switch (ATTR_TYPE(a)) {
		case RDMA_NLDEV_ATTR_PORT_INDEX: port = rt_nla_u32(a); break;
		case RDMA_NLDEV_ATTR_STAT_COUNTER_ID: id = rt_nla_u32(a); has_id = 1; break;
		case RDMA_NLDEV_ATTR_STAT_HWCOUNTERS:
			FOR_ATTR(e, ATTR_DATA(a), ATTR_LEN(a)) {
				int named = 0;

				if (ATTR_TYPE(e) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY || nhw == MAX_HW)
					continue;
				hw[nhw].v = 0;
				FOR_ATTR(f, ATTR_DATA(e), ATTR_LEN(e)) {
					if (ATTR_TYPE(f) == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME) {
						rt_nla_str(f, hw[nhw].name, sizeof(hw[nhw].name));
						named = hw[nhw].name[0] != '\0';
					} else if (ATTR_TYPE(f) == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE) {
						hw[nhw].v = rt_nla_u64(f);
					}
				}
				nhw += named;
			}
			break;
		case RDMA_NLDEV_ATTR_RES_QP:
			FOR_ATTR(e, ATTR_DATA(a), ATTR_LEN(a)) {
				if (ATTR_TYPE(e) != RDMA_NLDEV_ATTR_RES_QP_ENTRY)
					continue;
				FOR_ATTR(f, ATTR_DATA(e), ATTR_LEN(e))
					if (ATTR_TYPE(f) == RDMA_NLDEV_ATTR_RES_LQPN) {
						__u32 q = rt_nla_u32(f);

						if (!nqps++ || q < lqpn)
							lqpn = q;
						if (nb < MAX_HW)
							qps[nb++] = q;
					}
			}
			break;
		}
	}
	if (!has_id)
		return 0;
	t->ncounters++;
	for (size_t i = 0; i < nb; i++) {
		struct rt_qpc_bind *b = rt_append((void **)&t->b, &t->nb, &t->bcap, sizeof(*t->b));

		if (!b)
			return -ENOMEM;
		*b = (struct rt_qpc_bind){ dev_index, port, id, qps[i] };
	}
	for (size_t i = 0; i < nhw; i++) {
		struct rt_qpc_row *r = qpc_add(t);

		if (!r)
			return -ENOMEM;
		snprintf(r->dev, sizeof(r->dev), "%s", dev);
		r->dev_index = dev_index;
		r->port = port;
		r->counter_id = id;
		r->lqpn = lqpn;
		r->nqps = nqps;
		memcpy(r->name, hw[i].name, sizeof(r->name));
		r->value = hw[i].v;
	}
	return 0;
}

/* One message of the dump: the device, then its table of bound counters. */
static int stat_cb(const struct nlmsghdr *h, void *arg)
{
	struct rt_qpc_table *t = arg;
	const struct nlattr *tab = NULL;
	__u32 dev_index = 0;
	char dev[32] = "";
	int r;

	FOR_ATTR(a, RT_NL_ATTRS(h), RT_NL_ALEN(h)) {
		switch (ATTR_TYPE(a)) {
		case RDMA_NLDEV_ATTR_DEV_INDEX: dev_index = rt_nla_u32(a); break;
		case RDMA_NLDEV_ATTR_DEV_NAME: rt_nla_str(a, dev, sizeof(dev)); break;
		case RDMA_NLDEV_ATTR_STAT_COUNTER: tab = a; break;
		}
	}
	if (!tab)
		return 0;	/* no counter table: nothing bound */
	FOR_ATTR(e, ATTR_DATA(tab), ATTR_LEN(tab)) {
		if (ATTR_TYPE(e) != RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY)
			continue;
		if ((r = counter_entry(t, dev_index, dev, ATTR_DATA(e), ATTR_LEN(e))))
			return r;
	}
	return 0;
}

int rt_qpc_parse(const void *buf, size_t len, struct rt_qpc_table *t)
{
	return rt_nl_walk(buf, len, RDMA_NLDEV_CMD_STAT_GET, stat_cb, t);
}

/* each answer's own attributes, walked as stat_cb above walks its own */
static int status_cb(const struct nlmsghdr *h, void *arg)
{
	struct rt_stat_status *st = arg;

	FOR_ATTR(a, RT_NL_ATTRS(h), RT_NL_ALEN(h)) {
		if (ATTR_TYPE(a) != RDMA_NLDEV_ATTR_STAT_HWCOUNTERS)
			continue;
		FOR_ATTR(e, ATTR_DATA(a), ATTR_LEN(a)) {
			struct rt_stat_counter c = { .index = ~0u };

			if (ATTR_TYPE(e) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY)
				continue;
			FOR_ATTR(f, ATTR_DATA(e), ATTR_LEN(e)) {
				switch (ATTR_TYPE(f)) {
				case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME:
					rt_nla_str(f, c.name, sizeof(c.name));
					break;
				case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX: c.index = rt_nla_u32(f); break;
				case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC:
					c.optional = 1;
					c.enabled = rt_nla_u8(f) ? 1 : 0;
					break;
				}
			}
			if (!c.name[0] || c.index == ~0u)
				continue;
			if (st->n == RT_STAT_MAX_COUNTERS)
				return -E2BIG;
			st->c[st->n++] = c;
		}
	}
	return 0;
}

int rt_stat_status_parse(const void *buf, size_t len, struct rt_stat_status *st)
{
	return rt_nl_walk(buf, len, RDMA_NLDEV_CMD_STAT_GET_STATUS, status_cb, st);
}

static int mode_cb(const struct nlmsghdr *h, void *arg)
{
	struct rt_stat_mode *m = arg;

	FOR_ATTR(a, RT_NL_ATTRS(h), RT_NL_ALEN(h)) {
		switch (ATTR_TYPE(a)) {
		case RDMA_NLDEV_ATTR_STAT_MODE: m->mode = rt_nla_u32(a); m->known = 1; break;
		case RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK: m->mask = rt_nla_u32(a); break;
		case ATTR_OPCOUNTER_ENABLED: m->opcnt = rt_nla_u8(a) ? 1 : 0; m->has_opcnt = 1; break;
		}
	}
	return 0;
}

int rt_stat_mode_parse(const void *buf, size_t len, struct rt_stat_mode *m)
{
	return rt_nl_walk(buf, len, RDMA_NLDEV_CMD_STAT_GET, mode_cb, m);
}

/* ---- building requests ---- */

static void begin(struct rt_nlmsg *m, void *buf, size_t cap, int op, __u16 flags, __u32 seq)
{
	rt_nlmsg_begin(m, buf, cap, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op), flags, seq);
}

/* A request to one port of one device, acknowledged: the start of most. */
static void begin_port(struct rt_nlmsg *m, void *buf, size_t cap, int cmd, __u32 seq, __u32 dev_index,
		       __u32 port)
{
	begin(m, buf, cap, cmd, NLM_F_REQUEST | NLM_F_ACK, seq);
	rt_nlmsg_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	rt_nlmsg_u32(m, RDMA_NLDEV_ATTR_PORT_INDEX, port);
}

size_t rt_stat_req_dump(void *buf, size_t cap, __u32 seq, __u32 dev_index, __u32 port)
{
	struct rt_nlmsg m;

	begin(&m, buf, cap, RDMA_NLDEV_CMD_STAT_GET, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP, seq);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP);
	return rt_nlmsg_end(&m);
}

/* STAT_MODE present tells the kernel to answer with the mode (its value is
 * not read); without it a STAT_GET for QPs is refused with EINVAL. */
size_t rt_stat_req_mode(void *buf, size_t cap, __u32 seq, __u32 dev_index, __u32 port)
{
	struct rt_nlmsg m;

	begin_port(&m, buf, cap, RDMA_NLDEV_CMD_STAT_GET, seq, dev_index, port);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_MANUAL);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP);
	return rt_nlmsg_end(&m);
}

size_t rt_stat_req_status(void *buf, size_t cap, __u32 seq, __u32 dev_index, __u32 port)
{
	struct rt_nlmsg m;

	begin_port(&m, buf, cap, RDMA_NLDEV_CMD_STAT_GET_STATUS, seq, dev_index, port);
	return rt_nlmsg_end(&m);
}

size_t rt_stat_req_set_auto(void *buf, size_t cap, __u32 seq, __u32 dev_index, __u32 port,
			    __u32 mask, int opcnt)
{
	struct rt_nlmsg m;

	begin_port(&m, buf, cap, RDMA_NLDEV_CMD_STAT_SET, seq, dev_index, port);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_AUTO);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK, mask);
	if (opcnt >= 0) {
		__u8 v = (__u8)opcnt;

		rt_nlmsg_attr(&m, ATTR_OPCOUNTER_ENABLED, &v, 1);
	}
	return rt_nlmsg_end(&m);
}

size_t rt_stat_req_unbind(void *buf, size_t cap, __u32 seq, __u32 dev_index, __u32 port,
			  __u32 counter_id, __u32 lqpn)
{
	struct rt_nlmsg m;

	begin(&m, buf, cap, RDMA_NLDEV_CMD_STAT_DEL, NLM_F_REQUEST | NLM_F_ACK, seq);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_MANUAL);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, counter_id);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_RES_LQPN, lqpn);
	return rt_nlmsg_end(&m);
}

size_t rt_stat_req_set_optional(void *buf, size_t cap, __u32 seq, __u32 dev_index, __u32 port,
				const __u32 *idx, size_t n)
{
	struct rt_nlmsg m;
	size_t nest;

	begin_port(&m, buf, cap, RDMA_NLDEV_CMD_STAT_SET, seq, dev_index, port);
	nest = m.len;
	rt_nlmsg_attr(&m, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS | NLA_F_NESTED, NULL, 0);
	for (size_t i = 0; i < n; i++)
		rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, idx[i]);
	if (!m.err)
		((struct nlattr *)(m.b + nest))->nla_len = (__u16)(m.len - nest);
	return rt_nlmsg_end(&m);
}

/* ---- the real socket ---- */

static int sock_xfer(struct rt_nl_io *io, const void *req, size_t len,
		     int (*parse)(const void *buf, size_t len, void *arg), void *arg)
{
	static char buf[65536];

	if (io->fd < 0) {
		int fd = rt_nl_open(NETLINK_RDMA);

		if (fd < 0)
			return fd;
		io->fd = fd;
	}
	return rt_nl_ask(io->fd, req, len, buf, sizeof(buf), parse, arg);
}

void rt_nl_io_socket(struct rt_nl_io *io)
{
	memset(io, 0, sizeof(*io));
	io->fd = -1;
	io->xfer = sock_xfer;
}

void rt_nl_io_close(struct rt_nl_io *io)
{
	if (io->fd >= 0)
		close(io->fd);
	io->fd = -1;
}

/* ---- reading through an io ---- */

static int p_qpc(const void *b, size_t l, void *a) { return rt_qpc_parse(b, l, a); }
static int p_status(const void *b, size_t l, void *a) { return rt_stat_status_parse(b, l, a); }
static int p_mode(const void *b, size_t l, void *a) { return rt_stat_mode_parse(b, l, a); }
static int p_ack(const void *b, size_t l, void *a) { (void)a; return rt_nl_walk(b, l, -1, NULL, NULL); }
static int p_devs(const void *b, size_t l, void *a) { return rt_rdma_nl_parse(b, l, a); }

int rt_qpc_read(struct rt_nl_io *io, __u32 dev_index, __u32 port, struct rt_qpc_table *t)
{
	unsigned char req[64];
	size_t n = rt_stat_req_dump(req, sizeof(req), ++io->seq, dev_index, port);

	return io->xfer(io, req, n, p_qpc, t);
}

int rt_stat_read_mode(struct rt_nl_io *io, __u32 dev_index, __u32 port, struct rt_stat_mode *m)
{
	unsigned char req[64];
	size_t n = rt_stat_req_mode(req, sizeof(req), ++io->seq, dev_index, port);

	memset(m, 0, sizeof(*m));
	return io->xfer(io, req, n, p_mode, m);
}

int rt_stat_read_status(struct rt_nl_io *io, __u32 dev_index, __u32 port, struct rt_stat_status *st)
{
	unsigned char req[64];
	size_t n = rt_stat_req_status(req, sizeof(req), ++io->seq, dev_index, port);

	st->n = 0;
	return io->xfer(io, req, n, p_status, st);
}

static int set_auto(struct rt_nl_io *io, __u32 dev_index, __u32 port, __u32 mask, int opcnt)
{
	unsigned char req[128];
	size_t n = rt_stat_req_set_auto(req, sizeof(req), ++io->seq, dev_index, port, mask, opcnt);

	return io->xfer(io, req, n, p_ack, NULL);
}

static int set_optional(struct rt_nl_io *io, __u32 dev_index, __u32 port, const __u32 *idx, size_t nidx)
{
	unsigned char req[64 + 8 * RT_STAT_MAX_COUNTERS];
	size_t n = rt_stat_req_set_optional(req, sizeof(req), ++io->seq, dev_index, port, idx, nidx);

	return io->xfer(io, req, n, p_ack, NULL);
}

/* ---- --qp-counters: enable, restore, recover ---- */

static const char *const cc_names[] = { "cc_rx_ce_pkts", "cc_rx_cnp_pkts", "cc_tx_cnp_pkts" };

static int is_cc(const char *name)
{
	for (size_t i = 0; i < sizeof(cc_names) / sizeof(cc_names[0]); i++)
		if (!strcmp(name, cc_names[i]))
			return 1;
	return 0;
}

void rt_qpc_state_path(char *buf, size_t len)
{
	const char *dir = getenv("ROCETOP_RUN_DIR");

	snprintf(buf, len, "%s/qp-counters.state", dir && *dir ? dir : "/run/rocetop");
}

/* A process's start time (/proc/PID/stat field 22, clock ticks after boot): 0 or -errno. */
static int proc_start(int pid, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the name may hold spaces and parentheses */
	if (!p || sscanf(p + 1, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
			 start) != 1)
		return -EINVAL;
	return 0;
}

/*
 * Does the rocetop that wrote a state file still run? Its pid alone does not
 * say (a pid reused by another process would be believed for ever):
 * the process must have the start time the file recorded, or, in a file from
 * before start times were recorded, be named rocetop.
 */
static int holder_runs(int pid, int have_start, unsigned long long start)
{
	unsigned long long now;
	char path[64], comm[32] = "";
	int e;
	FILE *f;

	if (pid <= 0 || pid == getpid())
		return 0;
	e = proc_start(pid, &now);
	if (e == -ENOENT || e == -ESRCH)
		return 0;
	if (e)	/* /proc hidden (hidepid): only whether the pid exists is known */
		return kill(pid, 0) == 0 || errno == EPERM;
	if (have_start)
		return now == start;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, "rocetop");
}

/* One line per port changed:
 *   port DEV DEV_INDEX PORT MODE MASK OPCNT OPTIONAL
 * MODE MASK OPCNT as found (OPCNT -1: the kernel has none), OPTIONAL the
 * indexes of the optional counters enabled before, comma-separated, "-" when
 * they were not changed, "none" when none was enabled. */
static int state_write(const struct rt_qpc_ctl *c)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], dir[PATH_MAX];
	unsigned long long start;
	FILE *f;
	int fd;

	rt_qpc_state_path(path, sizeof(path));
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	if (proc_start(getpid(), &start))
		fprintf(f, "rocetop-qp-counters 1 pid %d\n", (int)getpid());
	else	/* the start time tells this process from a later one with its pid */
		fprintf(f, "rocetop-qp-counters 1 pid %d start %llu\n", (int)getpid(), start);
	for (size_t i = 0; i < c->n; i++) {
		const struct rt_qpc_port *p = &c->p[i];

		if (!p->changed_mode && !p->changed_optional)
			continue;
		fprintf(f, "port %s %u %u %u %u %d ", p->dev, p->dev_index, p->port,
			p->was.mode, p->was.mask, p->was.has_opcnt ? p->was.opcnt : -1);
		if (!p->changed_optional)
			fputs("-", f);
		else if (!p->nwas_optional)
			fputs("none", f);
		for (size_t j = 0; p->changed_optional && j < p->nwas_optional; j++)
			fprintf(f, "%s%u", j ? "," : "", p->was_optional[j]);
		fputc('\n', f);
	}
	if (fflush(f) || fsync(fd)) {
		int e = -errno;

		fclose(f);
		unlink(tmp);
		return e;
	}
	fclose(f);
	if (rename(tmp, path))
		return -errno;
	return 0;
}

/* Every QP bound to a counter on port p: unbound. 0 or -errno. */
static int unbind_all(struct rt_nl_io *io, const struct rt_qpc_port *p)
{
	struct rt_qpc_table t = { 0 };
	unsigned char req[96];
	int r = rt_qpc_read(io, p->dev_index, p->port, &t);

	for (size_t i = 0; !r && i < t.nb; i++) {
		if (t.b[i].port != p->port)
			continue;
		r = io->xfer(io, req, rt_stat_req_unbind(req, sizeof(req), ++io->seq, p->dev_index, p->port,
							  t.b[i].counter_id, t.b[i].lqpn), p_ack, NULL);
	}
	rt_qpc_table_free(&t);
	return r;
}

/* Put one port back; 0 or -errno (the first failure). */
static int restore_port(struct rt_nl_io *io, const struct rt_qpc_port *p)
{
	int r = 0, e;

	if (p->changed_optional) {
		e = set_optional(io, p->dev_index, p->port, p->was_optional, p->nwas_optional);
		if (e && !r)
			r = e;
	}
	if (p->changed_mode) {
		/* Auto off is asked as auto mode with an empty mask. */
		__u32 mask = p->was.mode == RDMA_COUNTER_MODE_AUTO ? p->was.mask : 0;
		struct rt_stat_mode now;

		/* Already as it was (a run killed before it changed anything, or
		 * someone put it back): nothing to do, and auto off would be refused. */
		if (!rt_stat_read_mode(io, p->dev_index, p->port, &now) && now.known &&
		    now.mode == p->was.mode && (now.mode != RDMA_COUNTER_MODE_AUTO || now.mask == p->was.mask))
			return r;
		e = set_auto(io, p->dev_index, p->port, mask, p->was.has_opcnt ? p->was.opcnt : -1);
		if (e && !r)
			r = e;
		/* Auto off leaves the QPs bound so far on their counters (the kernel
		 * then says "manual"): with none bound before, unbind them all. */
		if (!e && p->was.mode == RDMA_COUNTER_MODE_NONE)
			e = unbind_all(io, p);
		if (e && !r)
			r = e;
	}
	return r;
}

/* With the congestion counters asked for: which optional counters port p
 * has on (to put back) and which it will have (those and the congestion
 * ones), and whether QPs bind them too. */
static void plan_cc(struct rt_nl_io *io, struct rt_qpc_port *p, char *why, size_t whylen)
{
	struct rt_stat_status st;
	size_t nsupp = 0;
	int r;

	r = rt_stat_read_status(io, p->dev_index, p->port, &st);
	if (r)
		snprintf(why, whylen, "%s/%u: optional counters unknown (%s)", p->dev,
			 p->port, strerror(-r));
	for (size_t k = 0; !r && k < st.n; k++) {
		if (!st.c[k].optional)
			continue;
		if (st.c[k].enabled)
			p->was_optional[p->nwas_optional++] = st.c[k].index;
		if (is_cc(st.c[k].name)) {
			nsupp++;
			if (!st.c[k].enabled)
				p->changed_optional = 1;
		}
	}
	if (!r && !nsupp)
		snprintf(why, whylen, "%s/%u supports none of the optional congestion "
			 "counters (cc_rx_ce_pkts, cc_rx_cnp_pkts, cc_tx_cnp_pkts)", p->dev, p->port);
	p->nwant_optional = 0;
	for (size_t k = 0; !r && k < st.n; k++)
		if (st.c[k].optional && (st.c[k].enabled || is_cc(st.c[k].name)))
			p->want_optional[p->nwant_optional++] = st.c[k].index;
	/* Bind them per QP too (a kernel without the attribute ignores it). */
	if (nsupp)
		p->want_opcnt = 1;
}

/* What port rp is to become, in p (its mode as it was, what changes): 1, or 0
 * when it is left alone (not one of devs', no per-QP statistics, bound by
 * hand; why says so). */
static int plan_port(struct rt_qpc_port *p, struct rt_nl_io *io, const struct rt_rdma_port *rp,
		     const struct rt_qp_table *devs, int cc, char *why, size_t whylen)
{
	size_t d;
	int r;

	for (d = 0; d < devs->ndevs && strcmp(devs->dev_name[d], rp->dev); d++)
		;
	if (d == devs->ndevs)
		return 0;
	memset(p, 0, sizeof(*p));
	snprintf(p->dev, sizeof(p->dev), "%s", rp->dev);
	p->dev_index = devs->dev_index[d];
	p->port = rp->port;
	r = rt_stat_read_mode(io, p->dev_index, p->port, &p->was);
	if (r || !p->was.known) {
		snprintf(why, whylen, "%s/%u has no per-QP statistics (%s)", p->dev, p->port,
			 r ? strerror(-r) : "no mode in the answer");
		return 0;
	}
	if (p->was.mode == RDMA_COUNTER_MODE_MANUAL) {
		snprintf(why, whylen, "%s/%u binds QPs to counters by hand: left as it is",
			 p->dev, p->port);
		return 0;
	}
	p->want_mask = RDMA_COUNTER_MASK_QP_TYPE;
	p->want_opcnt = -1;
	if (cc)
		plan_cc(io, p, why, whylen);
	p->changed_mode = !(p->was.mode == RDMA_COUNTER_MODE_AUTO &&
			    (p->was.mask & RDMA_COUNTER_MASK_QP_TYPE) &&
			    (p->want_opcnt < 0 || p->was.opcnt == p->want_opcnt));
	if (p->changed_mode && p->was.mode == RDMA_COUNTER_MODE_AUTO)
		p->want_mask |= p->was.mask;
	return 1;
}

/* The planned changes made, port by port: how many ports bind by QP now that
 * did not (a refusal is said in why, and not put back later). */
static int apply_plan(struct rt_qpc_ctl *c, struct rt_nl_io *io, char *why, size_t whylen)
{
	int r, on = 0;

	for (size_t i = 0; i < c->n; i++) {
		struct rt_qpc_port *p = &c->p[i];

		if (p->changed_optional) {
			r = set_optional(io, p->dev_index, p->port, p->want_optional, p->nwant_optional);
			if (r) {
				snprintf(why, whylen, "%s/%u refused the optional counters (%s)", p->dev,
					 p->port, strerror(-r));
				p->changed_optional = 0;
			}
		}
		if (p->changed_mode) {
			r = set_auto(io, p->dev_index, p->port, p->want_mask, p->want_opcnt);
			if (r) {
				snprintf(why, whylen, "%s/%u refused automatic per-QP binding (%s)", p->dev,
					 p->port, strerror(-r));
				p->changed_mode = 0;
			} else {
				on++;
			}
		}
	}
	return on;
}

int rt_qpc_enable(struct rt_qpc_ctl *c, struct rt_nl_io *io, const struct rt_rdma_ports *ports,
		  const struct rt_qp_table *devs, int cc, char *why, size_t whylen)
{
	int r, changed = 0, on = 0;

	c->n = 0;
	c->io = io;
	why[0] = '\0';
	for (size_t i = 0; i < ports->n && c->n < RT_QPC_MAX_PORTS; i++) {
		struct rt_qpc_port *p = &c->p[c->n];

		if (!plan_port(p, io, &ports->p[i], devs, cc, why, whylen))
			continue;
		if (p->changed_mode || p->changed_optional)
			changed++;
		if (!p->changed_mode)
			on++;	/* already binding by QP type */
		c->n++;
	}
	if (!changed)
		return on;
	/* What must be put back is on disk before the first change. */
	r = state_write(c);
	if (r) {
		char path[PATH_MAX];

		rt_qpc_state_path(path, sizeof(path));
		snprintf(why, whylen, "cannot write %s (%s): the NIC's counter mode is left unchanged",
			 path, strerror(-r));
		c->n = 0;
		return r;
	}
	c->active = 1;
	return on + apply_plan(c, io, why, whylen);
}

int rt_qpc_restore(struct rt_qpc_ctl *c)
{
	char path[PATH_MAX];
	int r = 0;

	if (!c->active)
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		int e = restore_port(c->io, &c->p[i]);

		if (e && !r)
			r = e;
	}
	c->active = 0;
	rt_qpc_state_path(path, sizeof(path));
	if (!r)
		unlink(path);
	return r;
}

int rt_qpc_recover(struct rt_nl_io *io, char *msg, size_t msglen)
{
	char path[PATH_MAX], line[512], dev[32], opt[RT_STAT_MAX_COUNTERS * 11 + 8];
	struct rt_qp_table devs = { 0 };
	struct rt_qpc_port p;
	unsigned char req[64];
	int pid = 0, r = 0, nports = 0, have_devs = 0, have_start;
	unsigned long long start = 0;
	FILE *f;

	msg[0] = '\0';
	rt_qpc_state_path(path, sizeof(path));
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	if (!fgets(line, sizeof(line), f) || sscanf(line, "rocetop-qp-counters 1 pid %d", &pid) != 1) {
		fclose(f);
		snprintf(msg, msglen, "%s is not a rocetop state file: left alone", path);
		return -EINVAL;
	}
	have_start = sscanf(line, "rocetop-qp-counters 1 pid %*d start %llu", &start) == 1;
	if (holder_runs(pid, have_start, start)) {
		fclose(f);
		snprintf(msg, msglen, "rocetop pid %d holds the NIC's counter mode (%s)", pid, path);
		return -EBUSY;
	}
	/* Device indexes change when a driver reloads: find them again by name. */
	if (!io->xfer(io, req, rt_stat_req_devs(req, sizeof(req), ++io->seq), p_devs, &devs))
		have_devs = 1;
	while (fgets(line, sizeof(line), f)) {
		int opcnt, e;

		memset(&p, 0, sizeof(p));
		if (sscanf(line, "port %31s %u %u %u %u %d %s", dev, &p.dev_index, &p.port, &p.was.mode,
			   &p.was.mask, &opcnt, opt) != 7)
			continue;
		snprintf(p.dev, sizeof(p.dev), "%s", dev);
		for (size_t d = 0; have_devs && d < devs.ndevs; d++)
			if (!strcmp(devs.dev_name[d], dev))
				p.dev_index = devs.dev_index[d];
		p.was.has_opcnt = opcnt >= 0;
		p.was.opcnt = opcnt > 0;
		p.changed_mode = 1;
		if (strcmp(opt, "-")) {
			char *s = opt, *tok;

			p.changed_optional = 1;
			while (strcmp(opt, "none") && (tok = strsep(&s, ",")) &&
			       p.nwas_optional < RT_STAT_MAX_COUNTERS)
				p.was_optional[p.nwas_optional++] = (__u32)strtoul(tok, NULL, 10);
		}
		e = restore_port(io, &p);
		if (e && !r)
			r = e;
		nports++;
	}
	fclose(f);
	rt_qp_table_free(&devs);
	if (r) {
		snprintf(msg, msglen, "could not restore the NIC's counter mode left by pid %d (%s); "
			 "%s kept for the next try", pid, strerror(-r), path);
		return r;
	}
	unlink(path);
	snprintf(msg, msglen, "restored the per-QP counter mode of %d port%s left by rocetop pid %d",
		 nports, nports == 1 ? "" : "s", pid);
	return nports;
}

size_t rt_stat_req_devs(void *buf, size_t cap, __u32 seq)
{
	struct rt_nlmsg m;

	begin(&m, buf, cap, RDMA_NLDEV_CMD_GET, NLM_F_REQUEST | NLM_F_DUMP, seq);
	return rt_nlmsg_end(&m);
}

int rt_stat_status_of(struct rt_nl_io *io, const char *dev, __u32 port, struct rt_stat_status *st)
{
	struct rt_qp_table devs = { 0 };
	unsigned char req[64];
	int r;

	st->n = 0;
	r = io->xfer(io, req, rt_stat_req_devs(req, sizeof(req), ++io->seq), p_devs, &devs);
	for (size_t d = 0; !r && d < devs.ndevs; d++)
		if (!strcmp(devs.dev_name[d], dev)) {
			r = rt_stat_read_status(io, devs.dev_index[d], port, st);
			rt_qp_table_free(&devs);
			return r;
		}
	rt_qp_table_free(&devs);
	return r ? r : -ENODEV;
}
