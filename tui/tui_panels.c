// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The arithmetic of the live view's header and detail panels: PFC per
 * priority, the NIC's sums, a flow's rates and its series. */
#include <math.h>
#include <string.h>
#include "fmt.h"
#include "derive.h"
#include "linkspeed.h"
#include "tui_model.h"

void tui_pfc_prios(const struct rt_snapshot *s, const struct rt_delta *D, double secs,
		   __u64 speed_given, struct tui_pfc_prio out[RT_NPRIO])
{
	for (unsigned int p = 0; p < RT_NPRIO; p++) {
		struct tui_pfc_prio *o = &out[p];

		memset(o, 0, sizeof(*o));
		o->share = -1;
		for (size_t i = 0; i < D->nifs; i++) {
			const struct rt_if_val *v = &D->ifs[i].d;
			double ps;

			if (!rt_paused_any(v, p))
				continue;
			o->frames += v->pfc_frames[p];
			o->xon += v->pfc_xon[p];
			ps = rt_paused_secs(s, D->ifs[i].s, v, p, secs, speed_given);
			o->paused += ps;
			if (rt_share_pct(ps, secs) > o->share)
				o->share = rt_share_pct(ps, secs);
			else if (secs <= 0)
				o->share = 0;
		}
	}
}

static const char *const nic_key[] = { "np_ecn_marked_roce_packets", "np_cnp_sent",
				       "rp_cnp_handled", "out_of_sequence", "packet_seq_err" };

static const char *const nic_short[] = { "ecn_marked", "cnp_sent", "cnp_handled", "oos", "seq_err" };

#define NKEY (sizeof(nic_key) / sizeof(nic_key[0]))

size_t tui_nic_sums(const struct rt_delta *D, int totals, struct tui_nic_sum *out, size_t max)
{
	size_t n = 0;

	for (size_t pass = 0; pass <= NKEY && n < max; pass++) {
		for (size_t i = 0; i < D->nports && n < max; i++) {
			const struct rt_port_ctr *pc = D->ports[i].c;
			const char *name = pc->name;
			__u64 v = 0;
			int dup = 0;

			/* the ports' counters: the QPs' are parts of them */
			if (!pc->congestion || pc->scope == RT_SCOPE_QP)
				continue;
			if (pass < NKEY ? strcmp(name, nic_key[pass]) : 0)
				continue;
			/* each name once: its first row sums every port's */
			for (size_t j = 0; j < i; j++)
				dup |= !strcmp(D->ports[j].c->name, name);
			if (pass == NKEY) {	/* the rest: only if it moved */
				for (size_t k = 0; k < NKEY; k++)
					dup |= !strcmp(name, nic_key[k]);
				if (!totals && !D->ports[i].d)
					dup = 1;
			}
			if (dup)
				continue;
			for (size_t j = i; j < D->nports; j++)
				if (!strcmp(D->ports[j].c->name, name) && D->ports[j].c->scope != RT_SCOPE_QP)
					v += totals ? D->ports[j].c->value : D->ports[j].d;
			out[n].name = pass < NKEY ? nic_short[pass] : name;
			out[n].v = v;
			n++;
		}
	}
	return n;
}

void tui_detail_rates(const struct tui_data *t, size_t idx, struct tui_detail *out)
{
	static const int tm[TUI_DM_N] = { TM_PKTS, TM_BYTES, TM_CE, TM_CNP, TM_NAK };
	struct rt_flow_val tv, ivv;
	const struct rt_flow_val *tot = &tv, *iv = &ivv;
	double ws[TUI_NWIN];
	__u64 sum[TUI_NWIN][TM_N], ivc[TUI_DM_N];

	tui_flow_d(t, 1, idx, &tv);
	tui_flow_d(t, 0, idx, &ivv);
	ivc[TUI_DM_PKTS] = iv->pkts;
	ivc[TUI_DM_GBPS] = iv->bytes;
	ivc[TUI_DM_CE] = iv->ecn[RT_ECN_CE];
	ivc[TUI_DM_CNP] = iv->cnp;
	ivc[TUI_DM_NAK] = rt_nak(iv);
	memset(sum, 0, sizeof(sum));
	tui_hists_sums(&t->hists, idx, sum, ws);
	out->total[TUI_DM_PKTS] = tot->pkts;
	out->total[TUI_DM_GBPS] = tot->bytes;
	out->total[TUI_DM_CE] = tot->ecn[RT_ECN_CE];
	out->total[TUI_DM_CNP] = tot->cnp;
	out->total[TUI_DM_NAK] = rt_nak(tot);
	for (int m = 0; m < TUI_DM_N; m++) {
		for (int w = -1; w < TUI_NWIN; w++) {
			double s = w < 0 ? t->iv.secs : ws[w];
			double pk = w < 0 ? (double)iv->pkts : (double)sum[w][TM_PKTS];
			double cnt = w < 0 ? (double)ivc[m] : (double)sum[w][tm[m]];
			double *v = &out->v[m][w + 1];

			if (s <= 0)
				*v = NAN;
			else if (m == TUI_DM_CE)
				*v = rt_pct(cnt, pk);
			else if (m == TUI_DM_GBPS)
				*v = cnt * 8 / 1e9 / s;
			else
				*v = cnt / s;
		}
	}
}

int tui_detail_series(const struct tui_hist *h, int metric, int n, double *v, double *max)
{
	int k = 0;

	*max = 0;
	for (int i = n - 1; i >= 0; i--) {
		const struct tui_sample *s = tui_hist_at(h, (unsigned int)i);

		if (!s)
			continue;
		if (metric == 0)
			v[k] = rt_pct((double)s->c[TM_CE], (double)s->c[TM_PKTS]);
		else
			v[k] = s->secs > 0 ? s->c[metric == 1 ? TM_CNP : TM_PKTS] / s->secs : 0;
		if (v[k] > *max)
			*max = v[k];
		k++;
	}
	return k;
}
