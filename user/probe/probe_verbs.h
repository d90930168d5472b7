/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probe mesh on real verbs (probe_verbs.c): rdma_cm (its UD port space)
 * finds a peer's answering QP, one UD QP per device answers, one UD QP per
 * path sends. The caller runs the loop: it waits on rt_probe_mesh_fds(), then
 * calls rt_probe_mesh_poll() with the time it woke and how long it had been
 * kept from running, and rt_probe_mesh_tick() to send what is due.
 */
#ifndef RT_PROBE_VERBS_H
#define RT_PROBE_VERBS_H

#include "probe.h"

struct rt_probe_cfg {
	uint16_t cm_port;	/* rdma_cm's port the answerers listen on */
	uint32_t qkey;
	int answer;		/* answer others' probes */
	int npaths;		/* paths per peer (source QPs, each its own flow label) */
	uint32_t sizes[RT_PROBE_MAX_SIZES];	/* bytes; 0: the port's active MTU */
	int nsizes;
	double rate;		/* probes a second per peer, all paths and sizes together */
	double timeout;		/* seconds after which a probe is lost */
	double answer_rate;	/* answers a second at most (the rest dropped and counted) */
	uint8_t tclass;		/* the GRH traffic class (DSCP and ECN) of probes and answers */
};

/* What the answerer has seen, since the start. */
struct rt_probe_answerer {
	uint64_t answered;
	uint64_t dropped_rate;	/* over --answer-rate (its token bucket empty) */
	uint64_t dropped_busy;	/* no send slot free, no address handle, or the send refused */
	uint64_t bad[RT_PROBE_NBAD];	/* payloads refused, by why */
	int ndevs;
};

struct rt_probe_mesh;

/* The mesh for these peers (peers[i].name and .addr set), room made for
 * max_peers of them (peers has that room); NULL after saying why. */
struct rt_probe_mesh *rt_probe_mesh_new(const struct rt_probe_cfg *cfg, struct rt_probe_peer *peers, int npeers,
				       int max_peers);
/* peers[npeers] (its name and address set) joins the mesh: its index, or
 * -E2BIG with max_peers already. */
int rt_probe_mesh_add_peer(struct rt_probe_mesh *m);
/* Find peer i's answerer again (it may have restarted, on another QP); it is
 * probed on as before meanwhile. */
void rt_probe_mesh_recheck(struct rt_probe_mesh *m, int i);
/* Stop probing peer i for now (paused 1), or start again (0). */
void rt_probe_mesh_pause(struct rt_probe_mesh *m, int i, int paused);
void rt_probe_mesh_free(struct rt_probe_mesh *m);
/* The file descriptors to wait on (at most max); their number. */
int rt_probe_mesh_fds(struct rt_probe_mesh *m, int *fds, int max);
/* Take every event and completion there is; now and stall in ns (CLOCK_MONOTONIC). */
void rt_probe_mesh_poll(struct rt_probe_mesh *m, uint64_t now, uint64_t stall);
/* Count the probes past the timeout as lost; with send, also send the probes
 * due by now and try again the peers not resolved. */
void rt_probe_mesh_tick(struct rt_probe_mesh *m, uint64_t now, int send);
const struct rt_probe_answerer *rt_probe_mesh_answerer(const struct rt_probe_mesh *m);
/* The configuration as the mesh runs it (sizes of 0 made the port's MTU once a device is up). */
const struct rt_probe_cfg *rt_probe_mesh_cfg(const struct rt_probe_mesh *m);
/* Answers that named no probe in flight (late, or not ours); probes not sent (no slot). */
uint64_t rt_probe_mesh_late(const struct rt_probe_mesh *m);
uint64_t rt_probe_mesh_unsent(const struct rt_probe_mesh *m);
/* Probes sent and neither answered nor yet lost. */
int rt_probe_mesh_inflight(const struct rt_probe_mesh *m);
/* How the probes' times are taken: RT_PROBE_CLOCK_*. */
int rt_probe_mesh_clock(const struct rt_probe_mesh *m);
/* The bytes the mesh holds (buffers registered with the devices and its tables). */
size_t rt_probe_mesh_bytes(const struct rt_probe_mesh *m);

#endif
