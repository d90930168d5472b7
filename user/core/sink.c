// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The part every sink's constructor and close share. */
#include <stdlib.h>

#include "log.h"
#include "sink.h"

void rt_sink_init(struct rt_sink *s, const char *name, rt_sink_emit_fn emit, rt_sink_close_fn close,
		  void *priv)
{
	s->name = name;
	s->emit = emit;
	s->close = close;
	s->input_fd = -1;
	s->priv = priv;
}

struct rt_sink *rt_sink_new(const char *name, size_t priv_size, rt_sink_emit_fn emit,
			    rt_sink_close_fn close)
{
	struct rt_sink *s = calloc(1, sizeof(*s));
	void *priv = calloc(1, priv_size);

	if (!s || !priv) {
		pr_warn("out of memory.\n");
		free(s);
		free(priv);
		return NULL;
	}
	rt_sink_init(s, name, emit, close, priv);
	return s;
}

void rt_sink_free(struct rt_sink *s)
{
	free(s->priv);
	free(s);
}
