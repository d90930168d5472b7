// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probe mesh as a part of a run (probe_table.h): the peers, the mesh's
 * loop and its rows. The peers come from the command line, --probe-peers
 * FILE and the QP table; the loop wakes at least every 5 ms and at once for
 * a completion or an rdma_cm event, and a wake late past its tick is this
 * process's own stall (rt_probe_stall_of), taken out of the network's time.
 * In the live view the loop has a thread of its own, so the probes keep their
 * times while the main loop draws or writes; a mutex keeps the rows, taken
 * once an interval by the main loop, apart from the mesh's updates.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include "log.h"
#include "probe_table.h"
#include "qp.h"

#define RECHECK_NS	5000000000ull	/* a peer down is looked up again at most this often */

struct rt_probe_table {
	struct rt_probe_cfg cfg;
	struct rt_probe_thresholds th;
	struct rt_probe_peer *peers;
	uint8_t *from;
	uint64_t *recheck_at;
	uint64_t *seen_at;		/* QP table peers: when a QP last named it */
	uint64_t forget_ns;		/* a peer only the QP table named, gone for this long, rests */
	int npeers, max_peers, said_full;
	struct rt_probe_mesh *m;
	pthread_mutex_t mu;
	pthread_t thr;
	int have_thr, stop_fd, tick_fd;
	uint64_t last;
};

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct rt_probe_table *rt_probe_table_new(const struct rt_probe_cfg *cfg, const struct rt_probe_thresholds *th,
					  int max_peers)
{
	struct rt_probe_table *t = calloc(1, sizeof(*t));

	if (max_peers < 1 || max_peers > RT_PROBE_MAX_PEERS)
		max_peers = RT_PROBE_MAX_PEERS;
	if (!t || !(t->peers = calloc((size_t)max_peers, sizeof(*t->peers))) ||
	    !(t->from = calloc((size_t)max_peers, 1)) ||
	    !(t->recheck_at = calloc((size_t)max_peers, sizeof(*t->recheck_at))) ||
	    !(t->seen_at = calloc((size_t)max_peers, sizeof(*t->seen_at)))) {
		pr_warn("probe: out of memory.\n");
		rt_probe_table_free(t);
		return NULL;
	}
	t->cfg = *cfg;
	t->th = *th;
	t->max_peers = max_peers;
	t->stop_fd = t->tick_fd = -1;
	pthread_mutex_init(&t->mu, NULL);
	return t;
}

void rt_probe_table_free(struct rt_probe_table *t)
{
	if (!t)
		return;
	if (t->have_thr) {
		uint64_t one = 1;

		(void)!write(t->stop_fd, &one, sizeof(one));
		pthread_join(t->thr, NULL);
	}
	if (t->stop_fd >= 0)
		close(t->stop_fd);
	if (t->tick_fd >= 0)
		close(t->tick_fd);
	rt_probe_mesh_free(t->m);
	if (t->peers)
		pthread_mutex_destroy(&t->mu);
	free(t->peers);
	free(t->from);
	free(t->recheck_at);
	free(t->seen_at);
	free(t);
}

/* ---- the peers ---- */

static int find_peer(const struct rt_probe_table *t, const struct in_addr *a)
{
	for (int i = 0; i < t->npeers; i++)
		if (((const struct sockaddr_in *)&t->peers[i].addr)->sin_addr.s_addr == a->s_addr)
			return i;
	return -1;
}

/* With t->mu held. */
static int add_locked(struct rt_probe_table *t, const struct in_addr *a, const char *addr, const char *name,
		      int from)
{
	struct rt_probe_peer *p;
	struct sockaddr_in *sin;
	int i = find_peer(t, a);

	if (i >= 0) {
		t->from[i] |= (uint8_t)from;
		if (from & RT_PROBE_FROM_QP)
			t->seen_at[i] = mono();
		return 0;
	}
	if (t->npeers == t->max_peers) {
		if (!t->said_full)
			pr_warn("probe: more than %d peers: %s and the peers after it are not probed.\n",
				t->max_peers, addr);
		t->said_full = 1;
		return -E2BIG;
	}
	p = &t->peers[t->npeers];
	memset(p, 0, sizeof(*p));
	sin = (struct sockaddr_in *)&p->addr;
	sin->sin_family = AF_INET;
	sin->sin_addr = *a;
	snprintf(p->addr_text, sizeof(p->addr_text), "%s", addr);
	snprintf(p->name, sizeof(p->name), "%s", name && *name ? name : addr);
	t->from[t->npeers] = (uint8_t)from;
	t->seen_at[t->npeers] = mono();
	if (t->m && rt_probe_mesh_add_peer(t->m) < 0)
		return -E2BIG;
	t->npeers++;
	return 0;
}

int rt_probe_table_add(struct rt_probe_table *t, const char *addr, const char *name, int from, const char *where)
{
	struct in_addr a;
	int err;

	if (inet_pton(AF_INET, addr, &a) != 1) {
		pr_warn("probe: '%s'%s is no IPv4 address; give a peer as a.b.c.d.\n", addr, where ? where : "");
		return -EINVAL;
	}
	pthread_mutex_lock(&t->mu);
	err = add_locked(t, &a, addr, name, from);
	pthread_mutex_unlock(&t->mu);
	return err;
}

int rt_probe_table_read_peers(struct rt_probe_table *t, const char *path)
{
	/* opened without blocking (a FIFO would hang the start), a regular file only */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), n = 0, err = 0;
	char line[512], where[300];
	struct stat st = { 0 };
	FILE *f;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		pr_warn("probe: cannot read --probe-peers %s: %s.\n", path,
			fd >= 0 && !S_ISREG(st.st_mode) ? "not a regular file" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		char *addr, *name, *save, *hash = strchr(line, '#');

		n++;
		if (!strchr(line, '\n') && !feof(f)) {
			pr_warn("probe: %s line %d is longer than %zu bytes.\n", path, n, sizeof(line) - 2);
			err = -EINVAL;
			break;
		}
		if (hash)
			*hash = '\0';
		addr = strtok_r(line, " \t\r\n", &save);
		if (!addr)
			continue;
		name = strtok_r(NULL, " \t\r\n", &save);
		snprintf(where, sizeof(where), " (%s line %d)", path, n);
		if (strtok_r(NULL, " \t\r\n", &save)) {
			pr_warn("probe: %s line %d has more than an address and a name.\n", path, n);
			err = -EINVAL;
			break;
		}
		err = rt_probe_table_add(t, addr, name, RT_PROBE_FROM_LIST, where);
	}
	if (!err && ferror(f)) {
		pr_warn("probe: cannot read --probe-peers %s: %s.\n", path, strerror(errno));
		err = -EIO;
	}
	fclose(f);
	return err;
}

void rt_probe_table_forget_after(struct rt_probe_table *t, double secs)
{
	t->forget_ns = secs > 0 ? (uint64_t)(secs * 1e9) : 0;
}

int rt_probe_table_npeers(const struct rt_probe_table *t)
{
	return t->npeers;
}

int rt_probe_parse_sizes(const char *list, struct rt_probe_cfg *cfg)
{
	char buf[128], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", list);
	cfg->nsizes = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long v;
		char *end;

		if (cfg->nsizes == RT_PROBE_MAX_SIZES) {
			pr_warn("probe: --probe-sizes takes %d sizes at most.\n", RT_PROBE_MAX_SIZES);
			return -EINVAL;
		}
		if (!strcmp(tok, "mtu")) {
			cfg->sizes[cfg->nsizes++] = 0;
			continue;
		}
		errno = 0;
		v = strtoul(tok, &end, 10);
		if (errno || *end || tok[0] < '0' || tok[0] > '9' || v < RT_PROBE_HDR || v > RT_PROBE_MAX) {
			pr_warn("probe: --probe-sizes '%s' is not valid: give sizes from %d to %d bytes, or mtu, separated by commas.\n",
				list, RT_PROBE_HDR, RT_PROBE_MAX);
			return -EINVAL;
		}
		cfg->sizes[cfg->nsizes++] = (uint32_t)v;
	}
	if (!cfg->nsizes) {
		pr_warn("probe: --probe-sizes names no size.\n");
		return -EINVAL;
	}
	return 0;
}

void rt_probe_table_from_qps(struct rt_probe_table *t, const struct rt_qp_table *q)
{
	for (size_t i = 0; q && i < q->n; i++) {
		const struct rt_qp *x = &q->q[i];
		char text[INET_ADDRSTRLEN];
		struct in_addr a;

		/* a connected QP (RC, UC) whose peer rdma_cm named, IPv4 (or v4-mapped) */
		if (x->family != 4 || x->gone || !(x->type == 2 || x->type == 3))
			continue;
		memcpy(&a, x->dst[10] == 0xff && x->dst[11] == 0xff ? x->dst + 12 : x->dst, 4);
		if (!a.s_addr || !inet_ntop(AF_INET, &a, text, sizeof(text)))
			continue;
		pthread_mutex_lock(&t->mu);
		(void)add_locked(t, &a, text, NULL, RT_PROBE_FROM_QP);
		pthread_mutex_unlock(&t->mu);
	}
}

/* ---- the loop ---- */

int rt_probe_table_start(struct rt_probe_table *t)
{
	t->m = rt_probe_mesh_new(&t->cfg, t->peers, t->npeers, t->max_peers);
	if (!t->m)
		return -1;
	t->last = mono();
	return 0;
}

struct rt_probe_mesh *rt_probe_table_mesh(struct rt_probe_table *t)
{
	return t->m;
}

void rt_probe_table_step(struct rt_probe_table *t, uint64_t now, uint64_t stall, int send)
{
	pthread_mutex_lock(&t->mu);
	rt_probe_mesh_poll(t->m, now, stall);
	rt_probe_mesh_tick(t->m, now, send);
	pthread_mutex_unlock(&t->mu);
}

static void *loop(void *arg)
{
	struct rt_probe_table *t = arg;

	for (;;) {
		struct pollfd pf[16] = { { .fd = t->stop_fd, .events = POLLIN }, { .fd = t->tick_fd, .events = POLLIN } };
		int fds[14], n = rt_probe_mesh_fds(t->m, fds, 14);
		uint64_t now, stall, x;

		for (int i = 0; i < n; i++)
			pf[2 + i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		if (poll(pf, (nfds_t)(2 + n), -1) < 0 && errno != EINTR)
			break;
		if (pf[0].revents & POLLIN)
			break;
		if (pf[1].revents & POLLIN)
			(void)!read(t->tick_fd, &x, sizeof(x));
		now = mono();
		stall = rt_probe_stall_of(now - t->last);
		t->last = now;
		rt_probe_table_step(t, now, stall, 1);
	}
	return NULL;
}

int rt_probe_table_thread(struct rt_probe_table *t)
{
	struct itimerspec its = { .it_interval = { 0, RT_PROBE_TICK_NS }, .it_value = { 0, RT_PROBE_TICK_NS } };
	sigset_t all, old;
	int err;

	t->stop_fd = eventfd(0, EFD_CLOEXEC);
	t->tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (t->stop_fd < 0 || t->tick_fd < 0 || timerfd_settime(t->tick_fd, 0, &its, NULL)) {
		pr_warn("probe: %s.\n", strerror(errno));
		return -errno;
	}
	/* the signals stay the main loop's */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&t->thr, NULL, loop, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pr_warn("probe: cannot start its thread: %s.\n", strerror(err));
		return -err;
	}
	t->have_thr = 1;
	return 0;
}

/* ---- the rows ---- */

static void fill_row(struct rt_probe_row *r, const struct rt_probe_peer *p, int from, int k, uint32_t size,
		     const struct rt_probe_cell *c, const struct rt_probe_stats *st, int clock)
{
	snprintf(r->peer, sizeof(r->peer), "%s", p->name);
	snprintf(r->addr, sizeof(r->addr), "%s", p->addr_text);
	r->flow_label = p->flow_label[k];
	r->udp_sport = p->sport[k];
	r->path = (__u8)k;
	r->clock = (__u8)clock;
	r->size = size;
	r->from = (__u8)from;
	r->ready = (__u8)p->ready;
	r->sent = st->sent;
	r->answered = st->answered;
	r->lost = st->lost;
	r->sent_total = c->sent;
	r->answered_total = c->answered;
	r->lost_total = c->lost;
	r->rtt_p50_us = st->rtt_p50;
	r->rtt_p99_us = st->rtt_p99;
	r->net_p50_us = st->net_p50;
	r->resp_p50_us = st->resp_p50;
	r->net_base_us = c->base_n ? c->net_base_us : 0;
}

/* One peer's rows; 1 when no path of it had an answer in the interval and
 * every one lost probes (its answerer may have gone, or come back on
 * another QP). */
static int peer_rows(struct rt_probe_table *t, int i, struct rt_snapshot *snap, int clock, int *err)
{
	struct rt_probe_peer *p = &t->peers[i];
	/* the mesh's: a size of 0 (the MTU) becomes the port's once a device is up */
	const struct rt_probe_cfg *cfg = rt_probe_mesh_cfg(t->m);
	int down = 1, any = 0;

	for (int k = 0; k < p->npaths; k++)
		for (int z = 0; z < cfg->nsizes; z++) {
			struct rt_probe_cell *c = &p->cell[k][z];
			struct rt_probe_row *r = rt_snapshot_add_probe(snap);
			struct rt_probe_stats st;
			enum rt_probe_finding f;
			char why[sizeof(r->why)];

			rt_probe_cell_stats(c, &st);
			down &= st.answered == 0 && st.lost > 0;
			f = rt_probe_judge(c, &st, &t->th, why, sizeof(why));
			if (r) {
				fill_row(r, p, t->from[i], k, cfg->sizes[z], c, &st, clock);
				r->finding = (__u8)f;
				snprintf(r->why, sizeof(r->why), "%s", why);
			} else {
				*err = -ENOMEM;
			}
			rt_probe_cell_roll(c, &st, f, t->th.window);
			any = 1;
		}
	return any && down;
}

int rt_probe_table_rows(struct rt_probe_table *t, struct rt_snapshot *snap)
{
	int clock, err = 0, unknown = 0;
	uint64_t now = mono();

	if (!t->m)
		return 0;
	pthread_mutex_lock(&t->mu);
	clock = rt_probe_mesh_clock(t->m);
	for (int i = 0; i < t->npeers; i++) {
		int rests = t->forget_ns && t->from[i] == RT_PROBE_FROM_QP && now - t->seen_at[i] > t->forget_ns;

		rt_probe_mesh_pause(t->m, i, rests);
		if (rests)
			continue;
		if (!t->peers[i].ready) {
			unknown++;
			continue;
		}
		if (peer_rows(t, i, snap, clock, &err) && now >= t->recheck_at[i]) {
			rt_probe_mesh_recheck(t->m, i);
			t->recheck_at[i] = now + RECHECK_NS;
		}
	}
	pthread_mutex_unlock(&t->mu);
	if (unknown)
		rt_snapshot_note(snap, "probe: %d of %d peers not answering rdma_cm (no rocetop probe there, or UDP 4791 closed)",
				 unknown, t->npeers);
	return err;
}
