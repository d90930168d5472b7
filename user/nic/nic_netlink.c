// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * QPs and their owners from rdma netlink (NETLINK_RDMA, the nldev client), as
 * iproute2's `rdma res show qp` and `rdma res show cm_id` get them:
 *   RDMA_NLDEV_CMD_GET dump                  -> the devices (DEV_INDEX, DEV_NAME)
 *   RDMA_NLDEV_CMD_RES_QP_GET dump per device -> RES_QP { RES_QP_ENTRY { PORT_INDEX,
 *        LQPN, RQPN, TYPE, STATE, PID | KERN_NAME, ... } ... }
 *   RDMA_NLDEV_CMD_RES_CM_ID_GET dump per device -> RES_CM_ID { RES_CM_ID_ENTRY {
 *        LQPN, SRC_ADDR, DST_ADDR (sockaddr_storage), PID | KERN_NAME, ... } ... }
 * Parsing is a pure function over the message bytes (rt_rdma_nl_parse), so
 * it is tested on recorded messages; the socket part only moves bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include "nic.h"
#include "nlattr.h"

void rt_qp_table_clear(struct rt_qp_table *t)
{
	t->n = 0;
	t->ndevs = 0;
	t->ncm = 0;
}

void rt_qp_table_free(struct rt_qp_table *t)
{
	free(t->q);
	free(t->cm);
	memset(t, 0, sizeof(*t));
}

static struct rt_qp *qp_add(struct rt_qp_table *t)
{
	return rt_append((void **)&t->q, &t->n, &t->cap, sizeof(*t->q));
}


static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * A connected QP on its way down (rdma_cm's disconnect puts it in the error
 * state) is dumped without its peer's QP number, though its last packets
 * still go to that peer in the interval: it keeps the number the last dump
 * gave for the same QP of the same process.
 */
static void remember_rqpn(struct rt_qp *q, const struct rt_qp *prev, size_t nprev)
{
	if (q->has_rqpn)
		return;
	for (size_t i = 0; i < nprev; i++)
		if (prev[i].has_rqpn && prev[i].lqpn == q->lqpn && prev[i].dev_index == q->dev_index &&
		    prev[i].pid == q->pid) {
			q->rqpn = prev[i].rqpn;
			q->has_rqpn = 1;
			return;
		}
}

int rt_qp_table_keep_gone(struct rt_qp_table *t, const struct rt_qp *prev, size_t nprev)
{
	__u64 *now = malloc((t->n ? t->n : 1) * sizeof(*now));
	size_t n = t->n;
	int kept = 0;

	if (!now)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		now[i] = (__u64)t->q[i].dev_index << 32 | t->q[i].lqpn;
		remember_rqpn(&t->q[i], prev, nprev);
	}
	qsort(now, n, sizeof(*now), cmp_u64);
	for (size_t i = 0; i < nprev; i++) {
		__u64 key = (__u64)prev[i].dev_index << 32 | prev[i].lqpn;
		struct rt_qp *q;

		if (prev[i].gone || bsearch(&key, now, n, sizeof(key), cmp_u64))
			continue;
		if (!(q = qp_add(t))) {
			free(now);
			return -ENOMEM;
		}
		*q = prev[i];
		q->gone = 1;
		kept++;
	}
	free(now);
	return kept;
}

static int same_cm(const struct rt_qp *a, const struct rt_qp *b)
{
	return a->pid == b->pid && a->dev_index == b->dev_index && a->family == b->family &&
	       !memcmp(a->src, b->src, 16) && !memcmp(a->dst, b->dst, 16);
}

int rt_qp_table_keep_gone_cm(struct rt_qp_table *t, const struct rt_qp *prev, size_t nprev)
{
	size_t n = t->ncm;
	int kept = 0;

	for (size_t i = 0; i < nprev; i++) {
		struct rt_qp *q;
		size_t j;

		if (prev[i].gone)
			continue;
		for (j = 0; j < n && !same_cm(&t->cm[j], &prev[i]); j++)
			;
		if (j < n)
			continue;
		if (!(q = rt_append((void **)&t->cm, &t->ncm, &t->cmcap, sizeof(*t->cm))))
			return -ENOMEM;
		*q = prev[i];
		q->gone = 1;
		kept++;
	}
	return kept;
}

/* A __kernel_sockaddr_storage: family (host order u16), then sin / sin6. */
static int get_addr(const struct nlattr *a, __u8 *family, __u8 out[16])
{
	__u16 fam;

	if (ATTR_LEN(a) < 2)
		return -1;
	memcpy(&fam, ATTR_DATA(a), 2);
	memset(out, 0, 16);
	if (fam == AF_INET && ATTR_LEN(a) >= sizeof(struct sockaddr_in)) {
		memcpy(out, ATTR_DATA(a) + offsetof(struct sockaddr_in, sin_addr), 4);
		*family = 4;
		return 0;
	}
	if (fam == AF_INET6 && ATTR_LEN(a) >= sizeof(struct sockaddr_in6)) {
		memcpy(out, ATTR_DATA(a) + offsetof(struct sockaddr_in6, sin6_addr), 16);
		*family = 6;
		return 0;
	}
	return -1;
}

struct entry {
	struct rt_qp q;
	__u8 has_lqpn, sfam, dfam;
	__u8 src[16], dst[16];
};

static void parse_entry(const struct nlattr *ent, struct entry *e)
{
	FOR_ATTR(a, ATTR_DATA(ent), ATTR_LEN(ent)) {
		switch (ATTR_TYPE(a)) {
		case RDMA_NLDEV_ATTR_PORT_INDEX: e->q.port = rt_nla_u32(a); break;
		case RDMA_NLDEV_ATTR_RES_LQPN: e->q.lqpn = rt_nla_u32(a); e->has_lqpn = 1; break;
		case RDMA_NLDEV_ATTR_RES_RQPN: e->q.rqpn = rt_nla_u32(a); e->q.has_rqpn = 1; break;
		case RDMA_NLDEV_ATTR_RES_TYPE: e->q.type = rt_nla_u8(a); break;
		case RDMA_NLDEV_ATTR_RES_STATE: e->q.state = rt_nla_u8(a); break;
		case RDMA_NLDEV_ATTR_RES_PID: e->q.pid = rt_nla_u32(a); break;
		case RDMA_NLDEV_ATTR_RES_KERN_NAME: rt_nla_str(a, e->q.comm, sizeof(e->q.comm)); break;
		case RDMA_NLDEV_ATTR_RES_SRC_ADDR: get_addr(a, &e->sfam, e->src); break;
		case RDMA_NLDEV_ATTR_RES_DST_ADDR: get_addr(a, &e->dfam, e->dst); break;
		}
	}
}

static struct rt_qp *find_qp(struct rt_qp_table *t, __u32 dev_index, const char *dev, __u32 lqpn)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->q[i].lqpn == lqpn && t->q[i].dev_index == dev_index && !strcmp(t->q[i].dev, dev))
			return &t->q[i];
	return NULL;
}

/* One table (RES_QP or RES_CM_ID) of one device. */
static int parse_table(const struct nlattr *tab, int cm, __u32 dev_index, const char *dev,
		       struct rt_qp_table *t)
{
	static const __u8 zero[16];

	FOR_ATTR(ent, ATTR_DATA(tab), ATTR_LEN(tab)) {
		struct entry e;
		struct rt_qp *q;

		if (ATTR_TYPE(ent) != (cm ? RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY : RDMA_NLDEV_ATTR_RES_QP_ENTRY))
			continue;
		memset(&e, 0, sizeof(e));
		parse_entry(ent, &e);
		if (!e.has_lqpn) {
			/* A listener has no peer; a connection's ID without its QP
			 * still names the process its handshake is for. */
			if (cm && e.sfam && e.sfam == e.dfam && memcmp(e.dst, zero, 16)) {
				if (!(q = rt_append((void **)&t->cm, &t->ncm, &t->cmcap, sizeof(*t->cm))))
					return -ENOMEM;
				*q = e.q;
				q->lqpn = 0;
				q->dev_index = dev_index;
				snprintf(q->dev, sizeof(q->dev), "%s", dev);
				q->family = e.sfam;
				memcpy(q->src, e.src, 16);
				memcpy(q->dst, e.dst, 16);
			}
			continue;
		}
		q = cm ? find_qp(t, dev_index, dev, e.q.lqpn) : NULL;
		if (!q) {
			if (!(q = qp_add(t)))
				return -ENOMEM;
			*q = e.q;
			q->dev_index = dev_index;
			snprintf(q->dev, sizeof(q->dev), "%s", dev);
		} else {
			if (!q->pid && e.q.pid)
				q->pid = e.q.pid;
			if (!q->comm[0] && e.q.comm[0])
				memcpy(q->comm, e.q.comm, sizeof(q->comm));
			if (!q->port)
				q->port = e.q.port;
		}
		if (cm && e.sfam && e.sfam == e.dfam) {
			q->family = e.sfam;
			memcpy(q->src, e.src, 16);
			memcpy(q->dst, e.dst, 16);
		}
	}
	return 0;
}

/* One nldev message of a dump: a device (CMD_GET) or a QP / CM ID table. */
static int nl_msg(const struct nlmsghdr *h, void *arg)
{
	struct rt_qp_table *t = arg;
	int op = (int)RDMA_NL_GET_OP(h->nlmsg_type), cm = 0;
	const struct nlattr *tab = NULL;
	__u32 dev_index = 0, nports = 0;
	char dev[32] = "";

	FOR_ATTR(a, RT_NL_ATTRS(h), RT_NL_ALEN(h)) {
		switch (ATTR_TYPE(a)) {
		case RDMA_NLDEV_ATTR_DEV_INDEX: dev_index = rt_nla_u32(a); break;
		case RDMA_NLDEV_ATTR_DEV_NAME: rt_nla_str(a, dev, sizeof(dev)); break;
		case RDMA_NLDEV_ATTR_PORT_INDEX: nports = rt_nla_u32(a); break;
		case RDMA_NLDEV_ATTR_RES_QP: tab = a; cm = 0; break;
		case RDMA_NLDEV_ATTR_RES_CM_ID: tab = a; cm = 1; break;
		}
	}
	if (op == RDMA_NLDEV_CMD_GET && dev[0] && t->ndevs < RT_QP_MAX_DEVS) {
		size_t i;

		for (i = 0; i < t->ndevs && t->dev_index[i] != dev_index; i++)
			;
		if (i == t->ndevs) {
			t->dev_nports[t->ndevs] = nports;
			t->dev_index[t->ndevs] = dev_index;
			snprintf(t->dev_name[t->ndevs++], sizeof(t->dev_name[0]), "%s", dev);
		}
	} else if ((op == RDMA_NLDEV_CMD_RES_QP_GET || op == RDMA_NLDEV_CMD_RES_CM_ID_GET) && tab) {
		return parse_table(tab, cm, dev_index, dev, t);
	}
	return 0;
}

int rt_rdma_nl_parse(const void *buf, size_t len, struct rt_qp_table *t)
{
	return rt_nl_walk(buf, len, RT_NL_ANY, nl_msg, t);
}

/* One dump request; parse the answer until NLMSG_DONE. 0 or -errno. */
static int dump_with(int fd, __u32 seq, int op, int with_dev, __u32 dev_index,
		     int (*parse)(const void *buf, size_t len, void *arg), void *arg)
{
	static char buf[32768];
	unsigned char req[64];
	struct rt_nlmsg m;

	rt_nlmsg_begin(&m, req, sizeof(req), RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op), NLM_F_REQUEST | NLM_F_DUMP, seq);
	if (with_dev)
		rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	return rt_nl_ask(fd, req, rt_nlmsg_end(&m), buf, sizeof(buf), parse, arg);
}

static int parse_qps(const void *buf, size_t len, void *t)
{
	return rt_rdma_nl_parse(buf, len, t);
}

static int dump(int fd, __u32 seq, int op, int with_dev, __u32 dev_index, struct rt_qp_table *t)
{
	return dump_with(fd, seq, op, with_dev, dev_index, parse_qps, t);
}

static void pid_comm(__u32 pid, char *out, size_t len)
{
	char path[64], buf[32];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f)) {
		size_t k = strcspn(buf, "\n");

		if (k >= len)
			k = len - 1;
		memcpy(out, buf, k);
		out[k] = '\0';
	}
	fclose(f);
}

int rt_rdma_nl_dump(struct rt_qp_table *t)
{
	__u32 seq = 1;
	int fd, r;

	rt_qp_table_clear(t);
	fd = rt_nl_open(NETLINK_RDMA);
	if (fd < 0)
		return fd;
	r = dump(fd, seq++, RDMA_NLDEV_CMD_GET, 0, 0, t);
	for (size_t i = 0; !r && i < t->ndevs; i++) {
		r = dump(fd, seq++, RDMA_NLDEV_CMD_RES_QP_GET, 1, t->dev_index[i], t);
		/* CM IDs only add addresses: a kernel without them is no failure. */
		if (!r)
			dump(fd, seq++, RDMA_NLDEV_CMD_RES_CM_ID_GET, 1, t->dev_index[i], t);
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->q[i].pid && !t->q[i].comm[0])
			pid_comm(t->q[i].pid, t->q[i].comm, sizeof(t->q[i].comm));
	for (size_t i = 0; i < t->ncm; i++)
		if (t->cm[i].pid && !t->cm[i].comm[0])
			pid_comm(t->cm[i].pid, t->cm[i].comm, sizeof(t->cm[i].comm));
	close(fd);
	return r;
}

/*
 * The port query (RDMA_NLDEV_CMD_PORT_GET, as `rdma link show` asks it): each
 * answer names DEV_NAME and PORT_INDEX and, for a port with a netdev,
 * NDEV_INDEX and NDEV_NAME (the kernel's fill_port_info).
 */
static int port_cb(const struct nlmsghdr *h, void *arg)
{
	struct rt_rdma_ports *ps = arg;
	char dev[32] = "", nd[IF_NAMESIZE] = "";
	struct rt_rdma_port *p;
	__u32 port = 0;

	FOR_ATTR(a, RT_NL_ATTRS(h), RT_NL_ALEN(h)) {
		switch (ATTR_TYPE(a)) {
		case RDMA_NLDEV_ATTR_DEV_NAME: rt_nla_str(a, dev, sizeof(dev)); break;
		case RDMA_NLDEV_ATTR_PORT_INDEX: port = rt_nla_u32(a); break;
		case RDMA_NLDEV_ATTR_NDEV_NAME: rt_nla_str(a, nd, sizeof(nd)); break;
		}
	}
	if (!dev[0] || !port)
		return 0;
	p = rt_rdma_ports_find(ps, dev, port);
	if (!p) {
		if (!(p = rt_rdma_ports_add(ps)))
			return -ENOMEM;
		snprintf(p->dev, sizeof(p->dev), "%s", dev);
		p->port = port;
	}
	if (nd[0])
		snprintf(p->netdev, sizeof(p->netdev), "%s", nd);
	return 0;
}

int rt_rdma_nl_ports_parse(const void *buf, size_t len, struct rt_rdma_ports *ps)
{
	return rt_nl_walk(buf, len, RDMA_NLDEV_CMD_PORT_GET, port_cb, ps);
}

static int parse_ports(const void *buf, size_t len, void *ps)
{
	return rt_rdma_nl_ports_parse(buf, len, ps);
}

/* One port (DEV_INDEX, PORT_INDEX, acknowledged): the answer, then the ACK. */
static int port_query(int fd, __u32 seq, __u32 dev_index, __u32 port, struct rt_rdma_ports *ps)
{
	static char buf[8192];
	unsigned char req[64];
	struct rt_nlmsg m;

	rt_nlmsg_begin(&m, req, sizeof(req), RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET),
		       NLM_F_REQUEST | NLM_F_ACK, seq);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	rt_nlmsg_u32(&m, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	return rt_nl_ask(fd, req, rt_nlmsg_end(&m), buf, sizeof(buf), parse_ports, ps);
}

int rt_rdma_nl_port_netdevs(struct rt_rdma_ports *ps)
{
	struct rt_qp_table devs = { 0 };
	__u32 seq = 1;
	int fd, r;

	fd = rt_nl_open(NETLINK_RDMA);
	if (fd < 0)
		return fd;
	r = dump(fd, seq++, RDMA_NLDEV_CMD_GET, 0, 0, &devs);
	for (size_t i = 0; !r && i < devs.ndevs; i++)
		for (__u32 port = 1; !r && port <= devs.dev_nports[i] && port <= 255; port++)
			r = port_query(fd, seq++, devs.dev_index[i], port, ps);
	rt_qp_table_free(&devs);
	close(fd);
	return r;
}
