/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The NIC's own view, private to the files of user/nic/ (and their tests and
 * benchmarks; the QP table's type is user/core/qp.h):
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
#include "qp.h"
#include "stream.h"

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

/* The netdev's own sysfs counters below root (carrier_changes) as rows of
 * scope RT_SCOPE_NETDEV for dev/port ("" and 0 for a plain netdev); none for
 * loopback. Rows added, or -ENOMEM. */
int rt_sysfs_netdev_counters(const char *root, const char *netdev, const char *dev, __u32 port,
			     struct rt_snapshot *s);

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
/* `ethtool --get-tunable IF pfc-prevention-tout`: ms, 0xffff (auto), 0
 * (off), or -errno (-EOPNOTSUPP: the driver has no such tunable). */
int rt_ethtool_pfc_prevention_tout(const char *ifname);
/* The same from a file laid out as `ethtool -S` prints it. 0 or -errno. */
int rt_ethtool_read_file(const char *path, struct rt_ethtool_stats *st);
/* Standard pause statistics (ethtool netlink, ETHTOOL_A_PAUSE_STAT_*), added
 * as "pause_stat_tx_frames"/"pause_stat_rx_frames". 0 or -errno. */
int rt_ethtool_read_pause_nl(const char *ifname, struct rt_ethtool_stats *st);
/* Standard FEC statistics (ETHTOOL_A_FEC_STAT_*, the totals over the lanes),
 * added as "fec_stat_corrected_blocks", "fec_stat_uncorrectable_blocks" and
 * "fec_stat_corrected_bits" (`ethtool -I --show-fec`). 0 or -errno. */
int rt_ethtool_read_fec_nl(const char *ifname, struct rt_ethtool_stats *st);
/* 1 for the statistics rocetop keeps: pause, prio, pfc, ecn, cnp, discard,
 * and the health counters (rt_ethtool_is_health). */
int rt_ethtool_keep(const char *name);
/* 1 for mlx5's link and host health counters: FEC corrected bits, symbol
 * errors, rx_bits_phy, raw errors per lane, link downs, PCIe signal
 * integrity and stalls, rx_out_of_buffer, the standard FEC block counts. */
int rt_ethtool_is_health(const char *name);

/* ---- QPs and their owners (user/nic_netlink.c) ---- */

void rt_qp_table_free(struct rt_qp_table *t);
void rt_qp_table_clear(struct rt_qp_table *t);

/*
 * Parse netlink messages (one recv buffer, or several concatenated) of an
 * RDMA_NLDEV_CMD_GET dump (devices: t->dev_index/dev_name), or of an
 * RDMA_NLDEV_CMD_RES_QP_GET or RDMA_NLDEV_CMD_RES_CM_ID_GET dump into t. QP
 * entries add rows; CM ID entries give their addresses (and owner) to the QP
 * row of the same device and lqpn, adding one if needed. Pure: no I/O.
 * Returns 1 when NLMSG_DONE (or an ACK) was seen, 0 when more messages are to come, or a
 * negative errno (a netlink error message or a malformed buffer).
 */
int rt_rdma_nl_parse(const void *buf, size_t len, struct rt_qp_table *t);

/*
 * A QP of the previous dump (prev) that this one (t) lacks went during the
 * interval between them, with its process: the flows it carried in that
 * interval are still its. Such QPs are appended to t, marked gone, for this
 * one interval (the caller passes the dump before, not a table holding the
 * kept ones). Matched by device index and lqpn. Returns how many were kept,
 * or -ENOMEM.
 */
int rt_qp_table_keep_gone(struct rt_qp_table *t, const struct rt_qp *prev, size_t nprev);
/* The same for the CM IDs without a QP (t->cm), matched by process and
 * addresses: rdma_cm's disconnect can leave an interval after the QP. */
int rt_qp_table_keep_gone_cm(struct rt_qp_table *t, const struct rt_qp *prev, size_t nprev);

/* Dump the QPs (and CM IDs for their addresses) of every device through
 * NETLINK_RDMA into t (cleared first). 0 or -errno. */
int rt_rdma_nl_dump(struct rt_qp_table *t);

/*
 * Parse an RDMA_NLDEV_CMD_PORT_GET dump (one recv buffer or several): each
 * port named is added to ps if missing, and given the netdev the kernel
 * names (RDMA_NLDEV_ATTR_NDEV_NAME). Pure. Same returns as rt_rdma_nl_parse.
 */
int rt_rdma_nl_ports_parse(const void *buf, size_t len, struct rt_rdma_ports *ps);
/* Ask the kernel for every device's ports and their netdevs (as `rdma link
 * show` does: a device dump, then one query per port) into ps. 0 or -errno (-EPROTONOSUPPORT: no RDMA netlink). */
int rt_rdma_nl_port_netdevs(struct rt_rdma_ports *ps);

/* ---- per-QP statistics (user/nic/nic_stat.c) ---- */

/* One hardware counter of one bound counter: a row of the per-QP table. */
struct rt_qpc_row {
	char  dev[32];
	__u32 dev_index;
	__u32 port;
	__u32 counter_id;	/* the kernel's counter the QPs are bound to */
	__u32 lqpn;		/* the lowest QP bound to it */
	__u32 nqps;		/* how many QPs share it (auto mode by type binds several) */
	char  name[64];
	__u64 value;
};

struct rt_qpc_table {
	struct rt_qpc_row *r;
	size_t n, cap;
	size_t ncounters;	/* bound counters seen */
	/* Every QP of every bound counter (for unbinding them). */
	struct rt_qpc_bind { __u32 dev_index, port, counter_id, lqpn; } *b;
	size_t nb, bcap;
};

void rt_qpc_table_free(struct rt_qpc_table *t);

#define RT_STAT_MAX_COUNTERS 256

/* The hardware counters of a port (STAT_GET_STATUS). */
struct rt_stat_counter {
	char  name[64];
	__u32 index;
	__u8  optional;		/* the driver can turn it on and off */
	__u8  enabled;		/* for optional ones */
};

struct rt_stat_status {
	struct rt_stat_counter c[RT_STAT_MAX_COUNTERS];
	size_t n;
};

/* A port's QP counter binding mode (STAT_GET with STAT_RES = RES_QP). */
struct rt_stat_mode {
	__u32 mode;		/* enum rdma_nl_counter_mode */
	__u32 mask;		/* enum rdma_nl_counter_mask, auto mode */
	__u8  opcnt;		/* optional counters bound per QP too */
	__u8  has_opcnt;	/* the kernel said (newer kernels, auto mode) */
	__u8  known;		/* a mode was in the answer */
};

/*
 * Pure parsers of one recv buffer (or several concatenated): a STAT_GET dump
 * of bound counters (rows appended to t), a STAT_GET_STATUS answer, a
 * STAT_GET mode answer. 1 at NLMSG_DONE or the ACK, 0 when more is to come,
 * a negative errno (the kernel's error, -EBADMSG for a malformed buffer).
 */
int rt_qpc_parse(const void *buf, size_t len, struct rt_qpc_table *t);
int rt_stat_status_parse(const void *buf, size_t len, struct rt_stat_status *st);
int rt_stat_mode_parse(const void *buf, size_t len, struct rt_stat_mode *m);

/* Requests, built into buf (cap bytes); their length, 0 if it did not fit. */
size_t rt_stat_req_devs(void *buf, size_t cap, __u32 seq);
size_t rt_stat_req_dump(void *buf, size_t cap, __u32 seq, __u32 dev_index, __u32 port);
size_t rt_stat_req_mode(void *buf, size_t cap, __u32 seq, __u32 dev_index, __u32 port);
size_t rt_stat_req_status(void *buf, size_t cap, __u32 seq, __u32 dev_index, __u32 port);
/* Auto binding with mask (0: auto off); opcnt < 0 leaves the attribute out. */
size_t rt_stat_req_set_auto(void *buf, size_t cap, __u32 seq, __u32 dev_index, __u32 port,
			    __u32 mask, int opcnt);
/* Unbind QP lqpn from counter id (RDMA_NLDEV_CMD_STAT_DEL). */
size_t rt_stat_req_unbind(void *buf, size_t cap, __u32 seq, __u32 dev_index, __u32 port,
			  __u32 counter_id, __u32 lqpn);
/* Exactly these optional counters enabled (the others disabled). */
size_t rt_stat_req_set_optional(void *buf, size_t cap, __u32 seq, __u32 dev_index, __u32 port,
				const __u32 *idx, size_t n);

/*
 * The netlink layer, replaceable (tests): xfer sends one request and feeds
 * each answer buffer to parse until it returns non-zero. 0 or -errno.
 */
struct rt_nl_io {
	int (*xfer)(struct rt_nl_io *io, const void *req, size_t len,
		    int (*parse)(const void *buf, size_t len, void *arg), void *arg);
	int fd;
	__u32 seq;
	void *priv;
};

void rt_nl_io_socket(struct rt_nl_io *io);	/* NETLINK_RDMA, opened on first use */
void rt_nl_io_close(struct rt_nl_io *io);

int rt_qpc_read(struct rt_nl_io *io, __u32 dev_index, __u32 port, struct rt_qpc_table *t);
int rt_stat_read_mode(struct rt_nl_io *io, __u32 dev_index, __u32 port, struct rt_stat_mode *m);
int rt_stat_read_status(struct rt_nl_io *io, __u32 dev_index, __u32 port, struct rt_stat_status *st);
/* The same by device name (a device dump first). 0 or -errno (-ENODEV). */
int rt_stat_status_of(struct rt_nl_io *io, const char *dev, __u32 port, struct rt_stat_status *st);

/* --qp-counters: what was found on each port, what was changed. */
#define RT_QPC_MAX_PORTS 32

struct rt_qpc_port {
	char  dev[32];
	__u32 dev_index, port;
	struct rt_stat_mode was;
	__u32 was_optional[RT_STAT_MAX_COUNTERS];
	size_t nwas_optional;
	__u32 want_mask;
	int   want_opcnt;
	__u32 want_optional[RT_STAT_MAX_COUNTERS];
	size_t nwant_optional;
	__u8  changed_mode, changed_optional;
};

struct rt_qpc_ctl {
	struct rt_nl_io *io;
	struct rt_qpc_port p[RT_QPC_MAX_PORTS];
	size_t n;
	int active;		/* a state file is out and something to restore */
};

/* The state file: $ROCETOP_RUN_DIR (tests), else /run/rocetop, /qp-counters.state. */
void rt_qpc_state_path(char *buf, size_t len);
/*
 * Turn on automatic per-QP binding (by QP type) on every port of ports whose
 * device is in devs (an RDMA_NLDEV_CMD_GET dump), and with cc the optional
 * congestion counters the device supports; the mode found is written to the
 * state file first. Returns the number of ports that bind QPs by type now
 * (set here, or found so), 0 when none does, or -errno; why[] says what
 * could not be done, if anything.
 */
int rt_qpc_enable(struct rt_qpc_ctl *c, struct rt_nl_io *io, const struct rt_rdma_ports *ports,
		  const struct rt_qp_table *devs, int cc, char *why, size_t whylen);
/* Put back what rt_qpc_enable changed, remove the state file. 0 or -errno. */
int rt_qpc_restore(struct rt_qpc_ctl *c);
/*
 * At start: a state file left by a process that is gone (kill -9) is put back
 * and removed. Returns ports restored, 0 with no file, -EBUSY when its
 * process still runs, another -errno on failure; msg[] says what happened.
 */
int rt_qpc_recover(struct rt_nl_io *io, char *msg, size_t msglen);

/* ---- DCB netlink (user/nic/nic_dcb.c) ---- */

#define RT_DCB_MAX_APP 128

/* A netdev's IEEE 802.1Qaz configuration (DCB_CMD_IEEE_GET). */
struct rt_dcb {
	__u8  ok;		/* an answer was parsed */
	__u8  has_pfc, has_ets, has_app;
	char  ifname[16];
	__u8  pfc_cap, pfc_en;	/* pfc_en: bit N = PFC on priority N */
	__u64 pfc_requests[8], pfc_indications[8];
	__u8  prio_tc[8], tc_tsa[8], tc_bw[8];
	struct { __u8 selector, priority; __u16 protocol; } app[RT_DCB_MAX_APP];
	size_t napp;
};

/* Parse an RTM_GETDCB answer (DCB_CMD_IEEE_GET) into d. Pure: 1 when the
 * answer was there, 0 when not (yet), a negative errno (the kernel's, or
 * -EBADMSG for a malformed buffer). */
int rt_dcb_parse(const void *buf, size_t len, struct rt_dcb *d);
/* The priority the APP table gives a DSCP, or -1. */
int rt_dcb_app_prio(const struct rt_dcb *d, unsigned int dscp);
/* 1 when the APP table maps DSCPs (mlx5 then trusts DSCP), else 0 (PCP). */
int rt_dcb_trust_dscp(const struct rt_dcb *d);
/* The request for ifname; its length, 0 if it does not fit. */
size_t rt_dcb_req(void *buf, size_t cap, const char *ifname, __u32 seq);
/* Ask the kernel (NETLINK_ROUTE). 0 or -errno (-EOPNOTSUPP: no DCB on it). */
int rt_dcb_query(const char *ifname, struct rt_dcb *d);

/* ---- the join (user/core/join.c): see join.h ---- */

/* ---- the whole NIC source (user/nic/nic.c) ---- */

/* The NIC's own counters, joined into a snapshot after collect. */
struct rt_nic;
/* -i interfaces whose ethtool statistics are read at most. */
#define RT_NIC_MAX_IFACES 16
/* What the NIC's view reads of the command line. */
struct rt_nic_cfg {
	const char *sysfs_root;		/* --sysfs-root DIR: a fixture tree; NULL: the host */
	const char *const *ifaces;	/* -i: nifaces names (the first RT_NIC_MAX_IFACES kept) */
	int nifaces;
	int qp_counters;		/* --qp-counters: 1 bind QPs to counters, 2 (=cc) with
					 * the optional congestion counters; put back at exit */
};
struct rt_nic *rt_nic_new(const struct rt_nic_cfg *c);
void rt_nic_collect(struct rt_nic *n, struct rt_snapshot *snap);
void rt_nic_free(struct rt_nic *n);
/* --qp-counters could bind nothing (said in one sentence): -errno, else 0. */
int rt_nic_failed(const struct rt_nic *n);
/* At the end of a run: -errno (said in one sentence) when --qp-counters read
 * no per-QP counter at all, else 0. */
int rt_nic_end(struct rt_nic *n);
/* The doctor's last checks of this host (NULL before the first, or without
 * RDMA ports), kept until its next run: the findings' doctor rule reads them. */
struct rt_doc_findings;
const struct rt_doc_findings *rt_nic_doctor(const struct rt_nic *n);
/* n as the stream and the loop take it (user/core/stream.h); n may be NULL. */
struct rt_nic_view rt_nic_view(struct rt_nic *n);
/* Point a NIC source at another root (tests step through fixture times). */
void rt_nic_set_root(struct rt_nic *n, const char *root);
/* The jobs of the QPs' owners from J (user/nic/jobs.h; NULL: none), each
 * QP's job a row of the snapshot's jobs table. J stays the caller's. */
struct rt_jobs;
void rt_nic_set_jobs(struct rt_nic *n, struct rt_jobs *J);

#endif
