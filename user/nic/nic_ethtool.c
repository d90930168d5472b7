// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ethtool statistics of a netdev: PFC and pause as the NIC counts them
 * (mlx5: rx_prio3_pause, rx_prio3_pause_duration, tx_pause_storm_*_events,
 * rx_pause_ctrl_phy, ...), read with SIOCETHTOOL (ETHTOOL_GSSET_INFO, then
 * ETHTOOL_GSTRINGS and ETHTOOL_GSTATS), or from a fixture file laid out as
 * `ethtool -S` prints it; and the standard pause and FEC statistics through
 * ethtool netlink (ETHTOOL_MSG_PAUSE_GET, ETHTOOL_MSG_FEC_GET with
 * ETHTOOL_FLAG_STATS) where a driver has them.
 */
#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include "nic.h"
#include "nlattr.h"

void rt_ethtool_stats_free(struct rt_ethtool_stats *st)
{
	free(st->s);
	memset(st, 0, sizeof(*st));
}

static int add_stat(struct rt_ethtool_stats *st, const char *name, size_t namelen, __u64 v)
{
	struct rt_ethtool_stat *e;

	e = rt_append((void **)&st->s, &st->n, &st->cap, sizeof(*st->s));
	if (!e)
		return -ENOMEM;
	if (namelen > ETH_GSTRING_LEN)
		namelen = ETH_GSTRING_LEN;
	memcpy(e->name, name, namelen);
	e->name[namelen] = '\0';
	e->value = v;
	return 0;
}

static int ethtool_ioctl(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

/* A socket for ethtool_ioctl() on IFNAME: the fd, or -errno (-ENODEV: the
 * name is too long for a netdev). */
static int ethtool_open(const char *ifname)
{
	int fd;

	if (strlen(ifname) >= IF_NAMESIZE)
		return -ENODEV;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

/* One ethtool request on IFNAME through a socket of its own: 0 or -errno. */
static int ethtool_once(const char *ifname, void *data)
{
	int fd = ethtool_open(ifname), r;

	if (fd < 0)
		return fd;
	r = ethtool_ioctl(fd, ifname, data);
	close(fd);
	return r;
}

/* Through the ethtool ioctl: it answers for the caller's network namespace,
 * where /sys/class/net may show another one. */
__u64 rt_link_speed_mbps(const char *ifname)
{
	struct ethtool_cmd cmd = { .cmd = ETHTOOL_GSET };
	__u32 speed;

	if (ethtool_once(ifname, &cmd))
		return 0;
	speed = ethtool_cmd_speed(&cmd);
	return speed == (__u32)SPEED_UNKNOWN || speed == 0xffff ? 0 : speed;
}

int rt_ethtool_read_ioctl(const char *ifname, struct rt_ethtool_stats *st)
{
	/* The header and room for the one count its flexible data[] returns. */
	union {
		struct ethtool_sset_info hdr;
		__u8 room[sizeof(struct ethtool_sset_info) + sizeof(__u32)];
	} sset;
	struct ethtool_gstrings *strs = NULL;
	struct ethtool_stats *vals = NULL;
	__u32 n = 0, i;
	size_t room;
	int fd, r;

	fd = ethtool_open(ifname);
	if (fd < 0)
		return fd;
	memset(&sset, 0, sizeof(sset));
	sset.hdr.cmd = ETHTOOL_GSSET_INFO;
	sset.hdr.sset_mask = 1ULL << ETH_SS_STATS;
	r = ethtool_ioctl(fd, ifname, &sset);
	if (!r) {
		n = (sset.hdr.sset_mask & (1ULL << ETH_SS_STATS)) ? sset.hdr.data[0] : 0;
	} else if (r == -EOPNOTSUPP) {
		/* Older drivers: the count is in the driver info. */
		struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };

		r = ethtool_ioctl(fd, ifname, &di);
		n = r ? 0 : di.n_stats;
	}
	if (r)
		goto out;
	if (!n) {
		r = -EOPNOTSUPP;
		goto out;
	}
	/* The kernel writes as many strings and values as the driver counts
	 * when it answers, whatever count it is given, and that count can grow
	 * between the calls (a channel added, an XDP program attached): room
	 * for far more than asked. */
	room = (size_t)n * 2 + 1024;
	strs = calloc(1, sizeof(*strs) + room * ETH_GSTRING_LEN);
	vals = calloc(1, sizeof(*vals) + room * sizeof(__u64));
	if (!strs || !vals) {
		r = -ENOMEM;
		goto out;
	}
	strs->cmd = ETHTOOL_GSTRINGS;
	strs->string_set = ETH_SS_STATS;
	strs->len = n;
	vals->cmd = ETHTOOL_GSTATS;
	vals->n_stats = n;
	if ((r = ethtool_ioctl(fd, ifname, strs)) || (r = ethtool_ioctl(fd, ifname, vals)))
		goto out;
	/* The set may have changed between the calls: take what both hold. */
	n = strs->len < vals->n_stats ? strs->len : vals->n_stats;
	if (n > room)
		n = room;
	for (i = 0; i < n && !r; i++) {
		const char *name = (const char *)strs->data + (size_t)i * ETH_GSTRING_LEN;

		r = add_stat(st, name, strnlen(name, ETH_GSTRING_LEN), vals->data[i]);
	}
out:
	free(strs);
	free(vals);
	close(fd);
	return r;
}

/* The PFC storm prevention timeout (`ethtool --get-tunable IF
 * pfc-prevention-tout`): ms, PFC_STORM_PREVENTION_AUTO (0xffff),
 * PFC_STORM_PREVENTION_DISABLE (0), or -errno (-EOPNOTSUPP: no such tunable). */
int rt_ethtool_pfc_prevention_tout(const char *ifname)
{
	union {
		struct ethtool_tunable t;
		__u8 room[sizeof(struct ethtool_tunable) + sizeof(__u16)];
	} tun;
	__u16 v;
	int r;

	memset(&tun, 0, sizeof(tun));
	tun.t.cmd = ETHTOOL_GTUNABLE;
	tun.t.id = ETHTOOL_PFC_PREVENTION_TOUT;
	tun.t.type_id = ETHTOOL_TUNABLE_U16;
	tun.t.len = sizeof(__u16);
	r = ethtool_once(ifname, &tun);
	if (r)
		return r;
	memcpy(&v, tun.room + sizeof(struct ethtool_tunable), sizeof(v));
	return v;
}

/* A fixture's `ethtool -S` text. Like sysfs counters (nic_sysfs.c): no link
 * followed, no FIFO waited for, regular files only, at most 16 MiB read. */
int rt_ethtool_read_file(const char *path, struct rt_ethtool_stats *st)
{
	char line[512];
	struct stat sb;
	size_t taken = 0;
	FILE *f;
	int r = 0, fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -errno;
	}
	/* "NIC statistics:" then "     rx_prio3_pause: 1234" per statistic. */
	while (!r && taken < (16u << 20) && fgets(line, sizeof(line), f)) {
		char *colon = strrchr(line, ':'), *name = line, *end, *e;

		taken += sizeof(line);	/* a bound on lines of NULs too */
		unsigned long long v;

		if (!colon)
			continue;
		errno = 0;
		v = strtoull(colon + 1, &end, 10);
		while (*end == ' ' || *end == '\n' || *end == '\r')
			end++;
		if (errno || end == colon + 1 || *end)
			continue;	/* the header, or not a number */
		for (e = colon + 1; *e == ' '; e++)
			;
		if (*e < '0' || *e > '9')
			continue;
		while (*name == ' ' || *name == '\t')
			name++;
		if (name == colon)
			continue;
		r = add_stat(st, name, (size_t)(colon - name), v);
	}
	if (!r && ferror(f))
		r = -EIO;
	fclose(f);
	return r;
}

/* The link's and the host's health (mlx5's names, the kernel's
 * Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst):
 * FEC and symbol errors with the bits they are counted over, link downs,
 * PCIe signal integrity and stalls, receive queues without buffers. */
static const char *const health_names[] = {
	"rx_corrected_bits_phy", "rx_pcs_symbol_err_phy", "rx_symbol_err_phy", "rx_bits_phy",
	"link_down_events_phy", "rx_pci_signal_integrity", "tx_pci_signal_integrity",
	"outbound_pci_buffer_overflow", "outbound_pci_stalled_rd", "outbound_pci_stalled_wr",
	"outbound_pci_stalled_rd_events", "outbound_pci_stalled_wr_events", "rx_out_of_buffer",
	"fec_stat_corrected_blocks", "fec_stat_uncorrectable_blocks", "fec_stat_corrected_bits",
};

int rt_ethtool_is_health(const char *name)
{
	const char *p;

	for (size_t i = 0; i < sizeof(health_names) / sizeof(health_names[0]); i++)
		if (!strcmp(name, health_names[i]))
			return 1;
	/* rx_err_lane_0_phy, rx_err_lane_1_phy, ...: raw errors per lane before FEC */
	if (strncmp(name, "rx_err_lane_", 12))
		return 0;
	for (p = name + 12; *p >= '0' && *p <= '9'; p++)
		;
	return p > name + 12 && !strcmp(p, "_phy");
}

int rt_ethtool_keep(const char *name)
{
	static const char *const pat[] = { "pause", "prio", "pfc", "ecn", "cnp", "discard" };

	for (size_t i = 0; i < sizeof(pat) / sizeof(pat[0]); i++)
		if (strcasestr(name, pat[i]))
			return 1;
	return rt_ethtool_is_health(name);
}

/* ---- ethtool netlink: the standard pause statistics ---- */

static void put_attr(char *buf, size_t *off, __u16 type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)(buf + *off);

	a->nla_type = type;
	a->nla_len = (__u16)(NLA_HDRLEN + len);
	if (len)
		memcpy(buf + *off + NLA_HDRLEN, data, len);
	*off += NLA_ALIGN(a->nla_len);
}

/* Send one generic netlink request, receive one answer into buf. Length or -errno. */
static int genl_call(int fd, void *req, size_t reqlen, char *buf, size_t buflen)
{
	struct nlmsghdr *h;
	ssize_t r;

	if (send(fd, req, reqlen, 0) < 0)
		return -errno;
	r = recv(fd, buf, buflen, 0);
	if (r < 0)
		return -errno;
	h = (struct nlmsghdr *)buf;
	if (r < (ssize_t)NLMSG_HDRLEN || !NLMSG_OK(h, (size_t)r))
		return -EBADMSG;
	if (h->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA(h);

		return e->error ? e->error : -ENOMSG;
	}
	return (int)r;
}

/* The generic netlink family id of "ethtool" on this kernel, or -errno. */
static int ethtool_family(int fd, char *buf, size_t buflen)
{
	char req[128];
	struct nlmsghdr *h = (struct nlmsghdr *)req;
	struct genlmsghdr *g;
	__u16 family = 0;
	size_t off;
	int r;

	memset(req, 0, sizeof(req));
	h->nlmsg_type = GENL_ID_CTRL;
	h->nlmsg_flags = NLM_F_REQUEST;
	h->nlmsg_seq = 1;
	g = NLMSG_DATA(h);
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	off = NLMSG_HDRLEN + GENL_HDRLEN;
	put_attr(req, &off, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME, sizeof(ETHTOOL_GENL_NAME));
	h->nlmsg_len = (__u32)off;
	r = genl_call(fd, req, off, buf, buflen);
	if (r < 0)
		return r;
	h = (struct nlmsghdr *)buf;
	FOR_ATTR(a, (char *)NLMSG_DATA(h) + GENL_HDRLEN, h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN)
		if (ATTR_TYPE(a) == CTRL_ATTR_FAMILY_ID && ATTR_LEN(a) >= 2)
			memcpy(&family, ATTR_DATA(a), 2);
	return family ? family : -EOPNOTSUPP;
}

/*
 * One ethtool netlink GET (cmd) of ifname with its statistics (the header
 * attribute hdr, ETHTOOL_FLAG_STATS): the statistics nest (attribute stats)
 * of the answer, each u64 (or the first u64 of an array: the total, lanes
 * follow) whose type is names[type] added under that name. 0 or -errno
 * (-EOPNOTSUPP: none in the answer).
 */
static int ethtool_nl_stats(const char *ifname, __u8 cmd, __u16 hdr, __u16 stats,
			    const char *const *names, size_t nnames, struct rt_ethtool_stats *st)
{
	char req[256], buf[8192];
	struct nlmsghdr *h = (struct nlmsghdr *)req;
	struct genlmsghdr *g;
	size_t off, nest;
	__u32 flags = ETHTOOL_FLAG_STATS;
	int fd, r;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	r = ethtool_family(fd, buf, sizeof(buf));
	if (r < 0)
		goto out;
	/* GET { HEADER { DEV_NAME, FLAGS = STATS } } */
	memset(req, 0, sizeof(req));
	h->nlmsg_type = (__u16)r;
	h->nlmsg_flags = NLM_F_REQUEST;
	h->nlmsg_seq = 2;
	g = NLMSG_DATA(h);
	g->cmd = cmd;
	g->version = ETHTOOL_GENL_VERSION;
	off = NLMSG_HDRLEN + GENL_HDRLEN;
	nest = off;
	put_attr(req, &off, NLA_F_NESTED | hdr, NULL, 0);
	put_attr(req, &off, ETHTOOL_A_HEADER_DEV_NAME, ifname, strlen(ifname) + 1);
	put_attr(req, &off, ETHTOOL_A_HEADER_FLAGS, &flags, sizeof(flags));
	((struct nlattr *)(req + nest))->nla_len = (__u16)(off - nest);
	h->nlmsg_len = (__u32)off;
	r = genl_call(fd, req, off, buf, sizeof(buf));
	if (r < 0)
		goto out;
	r = -EOPNOTSUPP;
	h = (struct nlmsghdr *)buf;
	FOR_ATTR(a, (char *)NLMSG_DATA(h) + GENL_HDRLEN, h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN) {
		if (ATTR_TYPE(a) != stats)
			continue;
		FOR_ATTR(s, ATTR_DATA(a), ATTR_LEN(a)) {
			const char *name = ATTR_TYPE(s) < nnames ? names[ATTR_TYPE(s)] : NULL;

			/* ETHTOOL_STAT_NOT_SET (all ones): the driver does not count it */
			if (!name || ATTR_LEN(s) < 8 || rt_nla_u64(s) == ~0ULL)
				continue;
			r = add_stat(st, name, strlen(name), rt_nla_u64(s));
			if (r == -ENOMEM)
				goto out;
		}
	}
out:
	close(fd);
	return r;
}

int rt_ethtool_read_pause_nl(const char *ifname, struct rt_ethtool_stats *st)
{
	static const char *const names[] = {
		[ETHTOOL_A_PAUSE_STAT_TX_FRAMES] = "pause_stat_tx_frames",
		[ETHTOOL_A_PAUSE_STAT_RX_FRAMES] = "pause_stat_rx_frames",
	};

	return ethtool_nl_stats(ifname, ETHTOOL_MSG_PAUSE_GET, ETHTOOL_A_PAUSE_HEADER, ETHTOOL_A_PAUSE_STATS,
				names, sizeof(names) / sizeof(names[0]), st);
}

int rt_ethtool_read_fec_nl(const char *ifname, struct rt_ethtool_stats *st)
{
	static const char *const names[] = {
		[ETHTOOL_A_FEC_STAT_CORRECTED] = "fec_stat_corrected_blocks",
		[ETHTOOL_A_FEC_STAT_UNCORR] = "fec_stat_uncorrectable_blocks",
		[ETHTOOL_A_FEC_STAT_CORR_BITS] = "fec_stat_corrected_bits",
	};

	return ethtool_nl_stats(ifname, ETHTOOL_MSG_FEC_GET, ETHTOOL_A_FEC_HEADER, ETHTOOL_A_FEC_STATS,
				names, sizeof(names) / sizeof(names[0]), st);
}
