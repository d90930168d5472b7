/* rocetop-gen: the switch model's sFlow agent (sFlow v5 over UDP). */
#ifndef ROCETOP_GEN_SFLOW_H
#define ROCETOP_GEN_SFLOW_H

#include <stddef.h>
#include <stdint.h>

#include "gen.h"

/* The receiver-facing port of the modelled switch, and the senders' side. */
#define GEN_SF_PORT_RCV	1
#define GEN_SF_PORT_SND	2
#define GEN_SF_DROP_NO_BUFFER 259	/* sFlow's no_buffer_space */

struct gen_sflow;

/* A UDP socket to dest "ADDR:PORT" (IPv4 or [IPv6]), opened in netns (NULL:
 * here). Samples 1 in rate frames at random. NULL after a message. */
struct gen_sflow *gen_sflow_open(const char *dest, const char *netns, uint32_t agent_ip,
				 uint32_t rate, uint64_t seed, double link_gbps);
/* A frame the switch forwarded (just put on the wire): data frames leave on
 * the receiver's port (egress, with the model's queue depth and delay), the
 * receiver's frames come in on it (ingress). */
void gen_sflow_frame(struct gen_sflow *s, const struct gen_frame *f, const uint8_t *buf,
		     size_t len, double now);
/* A frame the switch tail-dropped: a drop notification. */
void gen_sflow_drop(struct gen_sflow *s, const struct gen_frame *f, double now);
/* Counter samples every few seconds, datagrams not left waiting. */
void gen_sflow_tick(struct gen_sflow *s, double now);
/* Send what waits; write DIR/sflow_flows.csv, sflow_drops.csv, sflow.txt
 * (dir may be NULL); free. 0, or -1 after a message. */
int gen_sflow_close(struct gen_sflow *s, const char *dir);

#endif
