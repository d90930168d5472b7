// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rt_opcode_name() against Wireshark's own names: tests/fixtures/tshark/
 * bth-opcodes.txt is `tshark -G values` for infiniband.bth.opcode, each line
 * "Reliable Connection (RC) - RDMA WRITE Middle". The expected name is the
 * short transport in the parentheses and the operation after " - " ("RC RDMA
 * WRITE Middle"; "CNP" as it is). Every one of the 256 opcodes is checked:
 * those tshark names give that name, the others their number ("0x15").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "derive.h"

static char want[256][80];

/* The fixture's lines into want[]; the number of opcodes read. */
static int read_fixture(const char *path)
{
	char line[256];
	int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *name, *open, *close, *dash;
		unsigned op;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "V\tinfiniband.bth.opcode\t%u\t", &op) != 1 || op > 255)
			continue;
		name = strrchr(line, '\t') + 1;
		open = strchr(name, '(');
		close = open ? strchr(open, ')') : NULL;
		dash = strstr(name, " - ");
		if (open && close && dash)
			snprintf(want[op], sizeof(want[op]), "%.*s %s", (int)(close - open - 1), open + 1, dash + 3);
		else
			snprintf(want[op], sizeof(want[op]), "%s", name);
		n++;
	}
	fclose(f);
	return n;
}

int main(void)
{
	char buf[80], num[8];
	int n = read_fixture("tests/fixtures/tshark/bth-opcodes.txt"), named = 0;

	CHECK(n == 84, "read %d opcodes from the fixture, want 84", n);
	for (int op = 0; op < 256; op++) {
		snprintf(num, sizeof(num), "0x%02x", op);
		rt_opcode_name((__u8)op, buf, sizeof(buf));
		CHECK(!strcmp(buf, want[op][0] ? want[op] : num), "opcode %d: '%s', tshark '%s'", op, buf,
		      want[op][0] ? want[op] : num);
		named += want[op][0] != 0;
	}
	CHECK_EQ(named, 84);
	CHECK(!strcmp(rt_opcode_name(7, buf, sizeof(buf)), "RC RDMA WRITE Middle"), "7: %s", buf);
	TEST_END("opcode_names_as_tshark");
	return TEST_EXIT();
}
