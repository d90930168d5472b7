/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The NIC's own view, private to the files of user/nic/ and user/core/join.c (and their tests):
 * RDMA devices and ports (verbs, else sysfs), their counters (sysfs), the
 * ethtool statistics of the netdevs behind them, the QPs and their owners
 * (rdma netlink), and the join of all that into a snapshot.
 */
#ifndef RT_NIC_H
#define RT_NIC_H

#include <stddef.h>
#include <linux/ethtool.h>
#include "snapshot.h"
#include "join.h"

/* ---- RDMA ports (user/nic_verbs.c, user/nic_sysfs.c) ---- */

struct rt_rdma_port {
	char  dev[32];
	__u32 port;
	char  netdev[IF_NAMESIZE];	/* behind the port's RoCE v2 GID, else any GID; "" unknown */
	char  link_layer[16];		/* "Ethernet", "InfiniBand" */
	char  state[16];		/* "ACTIVE", "DOWN", ... */
	char  rate[32];			/* "100 Gb/sec (4X EDR)" as sysfs says it */
	__u8  from_verbs;		/* 1: found by libibverbs, 0: by sysfs */
};

struct rt_rdma_ports {
	struct rt_rdma_port *p;
	size_t n, cap;
};

void rt_rdma_ports_free(struct rt_rdma_ports *ps);
struct rt_rdma_port *rt_rdma_ports_add(struct rt_rdma_ports *ps);
struct rt_rdma_port *rt_rdma_ports_find(struct rt_rdma_ports *ps, const char *dev, __u32 port);

/*
 * Open every device libibverbs lists; add each port it can query. Devices it
 * lists but cannot open are left to sysfs. Returns the number of devices
 * listed (0 with none), and says in why[] what went wrong, if anything.
 */
int rt_verbs_discover(struct rt_rdma_ports *ps, char *why, size_t whylen);

/* The sysfs tree of RDMA devices below root ("" or NULL: the real /sys). */
void rt_sysfs_ib_dir(const char *root, char *buf, size_t len);
/* Add the ports of every device under the tree that ps does not hold yet and
 * fill in what is missing of those it does. Returns the number of devices seen,
 * or -errno when the tree cannot be read (-ENOENT: no RDMA stack). */
int rt_sysfs_discover(const char *root, struct rt_rdma_ports *ps);

/* Counter width (RT_BITS_*) for rt_ctr_delta: counters/ hold the classic
 * 32-bit IB PortCounters (RT_BITS_NIC: a reload resets them) unless the name
 * is an extended-only one or the value says more; hw_counters by a per-driver
 * table of names (driver: the kernel driver's or the device's name), else
 * RT_BITS_NIC; ethtool's are 64-bit. */
unsigned int rt_nic_ctr_bits(const char *driver, int scope, const char *name, __u64 value);
/* The kernel driver of an RDMA device ("mlx5_core"), else the device's name. */
void rt_sysfs_driver(const char *root, const char *dev, char *out, size_t len);
/* 1 for the congestion counters ARCHITECTURE.md names (and their kin elsewhere). */
int rt_nic_is_congestion(const char *name);

/*
 * Read the counters of every port in ps (and the devices' own hw_counters)
 * into s->ports. A counter that cannot be read or parsed is counted in
 * *nbad and its path kept in bad[] (first one), never an error.
 * Returns the number of counters added, or -ENOMEM.
 */
int rt_sysfs_read_counters(const char *root, const struct rt_rdma_ports *ps,
			   struct rt_snapshot *s, int *nbad, char *bad, size_t badlen);

/* ---- ethtool statistics (user/nic/nic_ethtool.c) ---- */

struct rt_ethtool_stat {
	char  name[ETH_GSTRING_LEN + 1];
	__u64 value;
};

struct rt_ethtool_stats {
	struct rt_ethtool_stat *s;
	size_t n, cap;
};

void rt_ethtool_stats_free(struct rt_ethtool_stats *st);
/* Every statistic of ifname through SIOCETHTOOL, in the driver's order.
 * 0 or -errno (-EOPNOTSUPP: the driver has none, -ENODEV: no such netdev). */
int rt_ethtool_read_ioctl(const char *ifname, struct rt_ethtool_stats *st);
/* Link speed of a netdev in Mb/s (ETHTOOL_GSET), 0 when unknown. */
__u64 rt_link_speed_mbps(const char *ifname);
/* The same from a file laid out as `ethtool -S` prints it. 0 or -errno. */
int rt_ethtool_read_file(const char *path, struct rt_ethtool_stats *st);
/* Standard pause statistics (ethtool netlink, ETHTOOL_A_PAUSE_STAT_*), added
 * as "pause_stat_tx_frames"/"pause_stat_rx_frames". 0 or -errno. */
int rt_ethtool_read_pause_nl(const char *ifname, struct rt_ethtool_stats *st);
/* 1 for the statistics rocetop keeps: pause, prio, pfc, ecn, cnp, discard. */
int rt_ethtool_keep(const char *name);

/* ---- QPs and their owners (user/nic_netlink.c) ---- */

struct rt_qp {
	char  dev[32];
	__u32 dev_index;
	__u32 port;		/* 0: not bound to a port yet */
	char  netdev[IF_NAMESIZE];	/* of dev/port where known, else "" */
	__u32 lqpn;
	__u32 rqpn;		/* RC/UC only, else 0 */
	__u8  type;		/* enum ib_qp_type: 2 RC, 3 UC, 4 UD, ... */
	__u8  state;		/* enum ib_qp_state: 3 RTS, ... */
	__u8  has_rqpn;
	__u8  family;		/* 4 or 6 when the addresses are known (from a CM ID), else 0 */
	__u8  src[16];		/* local address */
	__u8  dst[16];		/* remote address */
	__u32 pid;		/* 0 for a kernel QP */
	char  comm[16];		/* process name, or the kernel owner's name */
};

#define RT_QP_MAX_DEVS 64

struct rt_qp_table {
	struct rt_qp *q;
	size_t n, cap;
	/* Devices from an RDMA_NLDEV_CMD_GET dump: the resource dumps are per device. */
	__u32 dev_index[RT_QP_MAX_DEVS];
	char  dev_name[RT_QP_MAX_DEVS][32];
	size_t ndevs;
};

void rt_qp_table_free(struct rt_qp_table *t);
void rt_qp_table_clear(struct rt_qp_table *t);

/*
 * Parse netlink messages (one recv buffer, or several concatenated) of an
 * RDMA_NLDEV_CMD_GET dump (devices: t->dev_index/dev_name), or of an
 * RDMA_NLDEV_CMD_RES_QP_GET or RDMA_NLDEV_CMD_RES_CM_ID_GET dump into t. QP
 * entries add rows; CM ID entries give their addresses (and owner) to the QP
 * row of the same device and lqpn, adding one if needed. Pure: no I/O.
 * Returns 1 when NLMSG_DONE was seen, 0 when more messages are to come, or a
 * negative errno (a netlink error message or a malformed buffer).
 */
int rt_rdma_nl_parse(const void *buf, size_t len, struct rt_qp_table *t);

/* Dump the QPs (and CM IDs for their addresses) of every device through
 * NETLINK_RDMA into t (cleared first). 0 or -errno. */
int rt_rdma_nl_dump(struct rt_qp_table *t);

/* ---- the join (user/core/join.c): see join.h ---- */

/* ---- the whole NIC source (user/nic/nic.c) ---- */

struct rt_nic;
/* Point a NIC source at another root (tests step through fixture times). */
void rt_nic_set_root(struct rt_nic *n, const char *root);

#endif
