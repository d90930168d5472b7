/* rocetop-gen: RoCEv2 traffic generator with an exact tally (shared declarations). */
#ifndef ROCETOP_GEN_H
#define ROCETOP_GEN_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#define GEN_ROCE_PORT 4791
#define GEN_MAX_FRAME 9216
#define IF_NAMESIZE_GEN 16

enum gen_side { SIDE_DATA = 0, SIDE_RCV = 1 };

/* What kind of frame a descriptor describes (also the summary's buckets). */
enum gen_kind {
	K_DATA = 0,   /* RoCE request packet (SEND / RDMA WRITE family) */
	K_CNP,        /* BTH opcode 0x81 */
	K_ACK,        /* opcode 0x11, AETH type 0 */
	K_NAK_SEQ,    /* opcode 0x11, AETH type 3, code 0 */
	K_NAK_OTHER,  /* opcode 0x11, AETH type 3, other code */
	K_RNR,        /* opcode 0x11, AETH type 1 */
	K_PFC,        /* 802.1Qbb, opcode 0x0101 */
	K_PAUSE,      /* 802.3x, opcode 0x0001 */
	K__COUNT
};

/* One frame to put on the wire, described field by field. */
struct gen_frame {
	int side;                 /* enum gen_side */
	int kind;                 /* enum gen_kind */
	uint8_t dmac[6], smac[6];
	int vlan;                 /* -1: untagged; else VID (PCP = prio) */
	int prio;                 /* 0-7 */
	/* RoCE frames */
	uint32_t sip, dip;        /* host order */
	uint8_t dscp, ecn;
	uint16_t ip_id;
	uint16_t sport;
	uint8_t opcode;
	uint8_t se, fecn, becn, ackreq;
	uint32_t dqpn, psn;       /* 24 bits */
	int reth;
	uint64_t va;
	uint32_t rkey, dmalen;
	int aeth;
	uint8_t syndrome;
	uint32_t msn;
	int paylen;               /* multiple of 4 */
	uint8_t payfill;
	/* PFC / pause */
	uint16_t pfc_vec;
	uint16_t pfc_time[8];
	uint16_t pause_time;
	/* the switch model, for sFlow: queue depth met and time spent queued */
	uint32_t sw_qdepth, sw_delay_ns;
};

/* Mirror copies a switch sends to a collector (rocetop-gen --mirror). */
enum gen_mirror { GEN_MIRROR_NONE = 0, GEN_MIRROR_ERSPAN2, GEN_MIRROR_ERSPAN3, GEN_MIRROR_VXLAN };
#define GEN_MIRROR_HDR 54		/* the longest outer headers: 14 + 20 + 20 */

/* gen_wire.c */
size_t gen_wrap_mirror(int type, uint32_t session, int egress, uint32_t seq, const uint8_t *smac,
		       const uint8_t *dmac, const uint8_t *in, size_t len, uint8_t *out);
size_t gen_build(const struct gen_frame *f, uint8_t *buf);
uint32_t gen_icrc(const uint8_t *ip, size_t ip_to_icrc_len);
int gen_frame_kind_from_aeth(uint8_t syndrome);

/* gen_util.c: the next element of a table that doubles as it grows (from
 * 64), zeroed and counted in *n; NULL when out of memory. */
void *gen_append(void **arr, size_t *n, size_t *cap, size_t size);
/* A tally file dir/name opened for writing (its name in path), its first
 * line head (NULL: none); NULL after saying why. */
FILE *gen_tally_open(char *path, size_t len, const char *dir, const char *name, const char *head);
/* Closes a tally file: 0, or -1 after saying it could not be written. */
int gen_tally_close(FILE *fp, const char *path);

#endif
