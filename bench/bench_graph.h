/*
 * clstream's two sides of clstream-bench's graph rows (bench_graph.c):
 * "ours", one replay of a captured graph of N tiny kernels, and "plain",
 * the same N kernels launched one by one through clstream; both end in a
 * stream synchronize.  The hooks are those of bench/raw.h.
 */
#ifndef CLSTREAM_BENCH_GRAPH_H
#define CLSTREAM_BENCH_GRAPH_H

#include "clstream.h"

/* The fill kernel and the 4 KiB device buffer bench.c made. */
void graph_init(clsFunction_t fill, int *buf);

int graph_ours_setup(int sc, unsigned param);
int graph_ours_run(int sc, unsigned inner);
int graph_plain_setup(int sc, unsigned param);
int graph_plain_run(int sc, unsigned inner);
int graph_reset(int sc);
void graph_ours_teardown(int sc);
void graph_plain_teardown(int sc);
double graph_elapsed_ms(void);
const char *graph_error(void);

#endif /* CLSTREAM_BENCH_GRAPH_H */
