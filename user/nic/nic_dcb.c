// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A netdev's IEEE 802.1Qaz configuration from DCB netlink (rtnetlink
 * RTM_GETDCB, DCB_CMD_IEEE_GET), as `dcb pfc show`, `dcb ets show` and
 * `dcb app show` read it: the answer carries DCB_ATTR_IEEE { IEEE_ETS
 * (struct ieee_ets), IEEE_PFC (struct ieee_pfc), IEEE_APP_TABLE { IEEE_APP
 * (struct dcb_app) ... } }. rt_dcb_parse() is pure, tested on byte arrays
 * (tests/unit/test_doctor.c) and fuzzed; rt_dcb_query() only moves bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "nic.h"
#include "nlattr.h"


static void parse_ieee(const struct nlattr *ieee, struct rt_dcb *d)
{
	FOR_ATTR(a, ATTR_DATA(ieee), ATTR_LEN(ieee)) {
		switch (ATTR_TYPE(a)) {
		case DCB_ATTR_IEEE_PFC: {
			struct ieee_pfc p;

			if (rt_nla_get(a, &p, sizeof(p)))
				break;
			d->has_pfc = 1;
			d->pfc_cap = p.pfc_cap;
			d->pfc_en = p.pfc_en;
			for (int i = 0; i < 8; i++) {
				d->pfc_requests[i] = p.requests[i];
				d->pfc_indications[i] = p.indications[i];
			}
			break;
		}
		case DCB_ATTR_IEEE_ETS: {
			struct ieee_ets e;

			if (rt_nla_get(a, &e, sizeof(e)))
				break;
			d->has_ets = 1;
			memcpy(d->prio_tc, e.prio_tc, 8);
			memcpy(d->tc_tsa, e.tc_tsa, 8);
			memcpy(d->tc_bw, e.tc_tx_bw, 8);
			break;
		}
		case DCB_ATTR_IEEE_APP_TABLE:
			d->has_app = 1;
			FOR_ATTR(e, ATTR_DATA(a), ATTR_LEN(a)) {
				struct dcb_app app;

				if (ATTR_TYPE(e) != DCB_ATTR_IEEE_APP || d->napp == RT_DCB_MAX_APP ||
				    rt_nla_get(e, &app, sizeof(app)))
					continue;
				d->app[d->napp].selector = app.selector;
				d->app[d->napp].priority = app.priority & 7;
				d->app[d->napp].protocol = app.protocol;
				d->napp++;
			}
			break;
		}
	}
}

int rt_dcb_parse(const void *buf, size_t len, struct rt_dcb *d)
{
	const char *p = buf;
	size_t left = len;

	memset(d, 0, sizeof(*d));
	while (left >= NLMSG_HDRLEN) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)p;
		const size_t hl = NLMSG_LENGTH(sizeof(struct dcbmsg));

		if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > left)
			return -EBADMSG;
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
				return -EBADMSG;
			if (e->error)
				return e->error < 0 ? e->error : -EPROTO;
		} else if (h->nlmsg_type == RTM_GETDCB && h->nlmsg_len >= hl) {
			const struct dcbmsg *m = NLMSG_DATA(h);

			if (m->cmd == DCB_CMD_IEEE_GET) {
				FOR_ATTR(a, p + NLMSG_ALIGN(hl), h->nlmsg_len - NLMSG_ALIGN(hl)) {
					if (ATTR_TYPE(a) == DCB_ATTR_IEEE)
						parse_ieee(a, d);
					else if (ATTR_TYPE(a) == DCB_ATTR_IFNAME) {
						size_t n = strnlen(ATTR_DATA(a), ATTR_LEN(a));

						if (n >= sizeof(d->ifname))
							n = sizeof(d->ifname) - 1;
						memcpy(d->ifname, ATTR_DATA(a), n);
						d->ifname[n] = '\0';
					}
				}
				d->ok = 1;
				return 1;
			}
		}
		if (NLMSG_ALIGN(h->nlmsg_len) >= left)
			break;
		left -= NLMSG_ALIGN(h->nlmsg_len);
		p += NLMSG_ALIGN(h->nlmsg_len);
	}
	return 0;
}

int rt_dcb_app_prio(const struct rt_dcb *d, unsigned int dscp)
{
	for (size_t i = 0; i < d->napp; i++)
		if (d->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP && d->app[i].protocol == dscp)
			return d->app[i].priority;
	return -1;
}

int rt_dcb_trust_dscp(const struct rt_dcb *d)
{
	for (size_t i = 0; i < d->napp; i++)
		if (d->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP)
			return 1;
	return 0;
}

size_t rt_dcb_req(void *buf, size_t cap, const char *ifname, __u32 seq)
{
	struct dcbmsg dm = { .dcb_family = AF_UNSPEC, .cmd = DCB_CMD_IEEE_GET };
	size_t n = strlen(ifname) + 1;
	struct rt_nlmsg m;

	if (n > 64)
		return 0;
	rt_nlmsg_begin(&m, buf, cap, RTM_GETDCB, NLM_F_REQUEST, seq);
	rt_nlmsg_put(&m, &dm, sizeof(dm));
	rt_nlmsg_attr(&m, DCB_ATTR_IFNAME, ifname, n);
	return rt_nlmsg_end(&m);
}

int rt_dcb_query(const char *ifname, struct rt_dcb *d)
{
	char req[128], buf[16384];
	size_t n = rt_dcb_req(req, sizeof(req), ifname, 1);
	ssize_t got;
	int fd, r;

	memset(d, 0, sizeof(*d));
	if (!n)
		return -EINVAL;
	fd = rt_nl_open(NETLINK_ROUTE);
	if (fd < 0)
		return fd;
	if (send(fd, req, n, 0) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	got = recv(fd, buf, sizeof(buf), 0);
	r = got < 0 ? -errno : rt_dcb_parse(buf, (size_t)got, d);
	close(fd);
	return r < 0 ? r : d->ok ? 0 : -EBADMSG;
}
