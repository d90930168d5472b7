/* rocetop-gen: scenarios (the fabric model and the fixed mix). */
#ifndef ROCETOP_GEN_MODEL_H
#define ROCETOP_GEN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "gen_out.h"

enum gen_scenario { SC_INCAST = 0, SC_PFC_STORM, SC_STEADY, SC_MIXED, SC_FIXED };

struct gen_cfg {
	int scenario;
	uint64_t frames, seed;
	int senders;
	double duration, rate;
	uint8_t dst_mac[6], rcv_mac[6], src_mac[6];
	int have_dst_mac, have_rcv_mac, have_src_mac;
	uint32_t rcv_ip, src_ip; /* host order */
	int vlan;
	int payload, msg_pkts, ack_every;
	double link_gbps, kmin_kb, kmax_kb, pmax, buffer_kb, cnp_interval_us, rnr_prob;
};

int gen_scenario_from_name(const char *name);
const char *gen_scenario_name(int sc);
/* Run the scenario until o says stop; appends model statistics to extra. */
void gen_run(const struct gen_cfg *c, struct gen_out *o, char *extra, size_t extra_len);

#endif
