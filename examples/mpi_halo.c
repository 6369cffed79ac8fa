/*
 * mpi_halo: a 1-D three-point stencil over MPI ranks, each driving its own
 * device (rank % device count), with halo exchange.  In every step the
 * interior of a rank's chunk is computed on one stream while the two edge
 * cells go device -> pinned host -> MPI -> pinned host -> device on
 * another; the two streams are ordered by events only (never by
 * clsDeviceSynchronize), and the host waits only for the event behind the
 * edge copy before it posts MPI_Isend/MPI_Irecv.  Rank 0 gathers the
 * result and checks it against a serial run on the CPU
 * (docs/interop.md explains it).
 *
 * Usage: mpirun -np N mpi_halo [CELLS_PER_RANK [STEPS]]   (default 65536, 40)
 */
#include "common.h"

#include <math.h>
#include <mpi.h>
#include <string.h>

static const char *src =
    "CLS_KERNEL void interior(CLS_GLOBAL const float *u, CLS_GLOBAL float *v,\n"
    "                         unsigned len) {\n"
    "  unsigned i = cls_global_id(0) + 2;\n"
    "  if (i < len) v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0f;\n"
    "}\n"
    "CLS_KERNEL void edges(CLS_GLOBAL const float *u, CLS_GLOBAL float *v,\n"
    "                      unsigned len) {\n"
    "  unsigned j = cls_global_id(0);\n"
    "  unsigned i = j ? len : 1;\n"
    "  if (j < 2 && len >= 2) v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0f;\n"
    "}\n";

/* The initial value of global cell g (of `total`). */
static float init(long g, long total) {
  return (float)((g * 7919) % 1000) / 1000.0f + (g == total / 2 ? 100.0f : 0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  unsigned len = argc > 1 ? (unsigned)atoi(argv[1]) : 65536;
  int steps = argc > 2 ? atoi(argv[2]) : 40;
  if (len < 4 || steps < 1) {
    if (!rank) fprintf(stderr, "usage: mpi_halo [CELLS >= 4 [STEPS >= 1]]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int ndev;
  CHECK(clsGetDeviceCount(&ndev));
  CHECK(clsSetDevice(rank % ndev));
  if (!rank) print_device();

  /* The chunk, cells 1..len, with a ghost cell at 0 and at len + 1; the
   * ends of the whole domain keep ghosts of 0. */
  size_t bytes = (len + 2) * sizeof(float);
  float *h = calloc(len + 2, sizeof(float));
  if (!h) MPI_Abort(MPI_COMM_WORLD, 1);
  long total = (long)len * nranks;
  for (unsigned i = 1; i <= len; ++i)
    h[i] = init((long)rank * len + i - 1, total);
  float *buf[2];
  for (int b = 0; b < 2; ++b) {
    CHECK(clsMalloc((void **)&buf[b], bytes));
    CHECK(clsMemcpy(buf[b], h, bytes, clsMemcpyHostToDevice));
  }
  clsModule_t mod;
  clsFunction_t fin, fedge;
  CHECK(clsModuleLoadData(&mod, src, NULL));
  CHECK(clsModuleGetFunction(&fin, mod, "interior"));
  CHECK(clsModuleGetFunction(&fedge, mod, "edges"));

  /* Pinned host staging: send[0] the left edge, send[1] the right; recv
   * likewise for the ghosts. */
  float *send, *recv;
  CHECK(clsMallocHost((void **)&send, 2 * sizeof(float)));
  CHECK(clsMallocHost((void **)&recv, 2 * sizeof(float)));
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int right = rank + 1 < nranks ? rank + 1 : MPI_PROC_NULL;

  clsStream_t si, sb; /* interior, boundary */
  CHECK(clsStreamCreateWithFlags(&si, clsStreamNonBlocking));
  CHECK(clsStreamCreateWithFlags(&sb, clsStreamNonBlocking));
  clsEvent_t ev_edge, ev_b, ev_int, i0, i1;
  CHECK(clsEventCreateWithFlags(&ev_edge, clsEventDisableTiming));
  CHECK(clsEventCreateWithFlags(&ev_b, clsEventDisableTiming));
  CHECK(clsEventCreateWithFlags(&ev_int, clsEventDisableTiming));
  CHECK(clsEventCreate(&i0));
  CHECK(clsEventCreate(&i1));
  unsigned ninterior = len - 2;
  clsDim3 block = {64, 1, 1}, one = {1, 1, 1};
  clsDim3 grid = {(ninterior + 63) / 64, 1, 1};

  /* Warm-up: both kernels once (the driver builds them at the first
   * launch), writing only cells step 0 writes again. */
  {
    void *wargs[] = {&buf[0], &buf[1], &len};
    CHECK(clsLaunchKernel(fin, grid, block, wargs, 0, si));
    CHECK(clsLaunchKernel(fedge, one, (clsDim3){2, 1, 1}, wargs, 0, si));
    CHECK(clsStreamSynchronize(si));
  }

  double comm = 0, hidden = 0;
  int timed = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int t = 0; t < steps; ++t) {
    float *cur = buf[t % 2], *nxt = buf[(t + 1) % 2];
    /* Boundary stream: nxt's edge cells are read by the interior of step
     * t - 1 until it is done. */
    if (t) CHECK(clsStreamWaitEvent(sb, ev_int, 0));
    CHECK(clsMemcpyAsync(&send[0], cur + 1, sizeof(float),
                         clsMemcpyDeviceToHost, sb));
    CHECK(clsMemcpyAsync(&send[1], cur + len, sizeof(float),
                         clsMemcpyDeviceToHost, sb));
    CHECK(clsEventRecord(ev_edge, sb));
    /* Interior stream: cur's edges come from step t - 1's edge kernel. */
    if (t) CHECK(clsStreamWaitEvent(si, ev_b, 0));
    void *iargs[] = {&cur, &nxt, &len};
    CHECK(clsEventRecord(i0, si));
    CHECK(clsLaunchKernel(fin, grid, block, iargs, 0, si));
    CHECK(clsEventRecord(i1, si));
    CHECK(clsEventRecord(ev_int, si));
    /* The halo exchange, while the interior runs. */
    double c0 = MPI_Wtime();
    CHECK(clsEventSynchronize(ev_edge));
    MPI_Request rq[4];
    MPI_Irecv(&recv[0], 1, MPI_FLOAT, left, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&recv[1], 1, MPI_FLOAT, right, 0, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(&send[0], 1, MPI_FLOAT, left, 0, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(&send[1], 1, MPI_FLOAT, right, 1, MPI_COMM_WORLD, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    double c = MPI_Wtime() - c0;
    if (left != MPI_PROC_NULL)
      CHECK(clsMemcpyAsync(cur, &recv[0], sizeof(float), clsMemcpyHostToDevice,
                           sb));
    if (right != MPI_PROC_NULL)
      CHECK(clsMemcpyAsync(cur + len + 1, &recv[1], sizeof(float),
                           clsMemcpyHostToDevice, sb));
    void *eargs[] = {&cur, &nxt, &len};
    CHECK(clsLaunchKernel(fedge, one, (clsDim3){2, 1, 1}, eargs, 0, sb));
    CHECK(clsEventRecord(ev_b, sb));
    /* The share of the exchange the interior covered: both started
     * together, so the overlap is the shorter of the two. */
    if (timed) {
      CHECK(clsEventSynchronize(i1));
      float ims;
      clsError_t e = clsEventElapsedTime(&ims, i0, i1);
      if (e == clsErrorNotSupported)
        timed = 0;
      else
        CHECK(e);
      double ic = timed ? ims / 1e3 : 0;
      comm += c;
      hidden += ic < c ? ic : c;
    }
  }
  CHECK(clsStreamSynchronize(sb));
  CHECK(clsStreamSynchronize(si));
  double per_step = (MPI_Wtime() - t0) / steps;

  /* Gather and check against the serial run. */
  CHECK(clsMemcpy(h, buf[steps % 2], bytes, clsMemcpyDeviceToHost));
  float *all = rank ? NULL : malloc(total * sizeof(float));
  if (!rank && !all) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Gather(h + 1, (int)len, MPI_FLOAT, all, (int)len, MPI_FLOAT, 0,
             MPI_COMM_WORLD);
  double share[2] = {comm, hidden}, sum[2];
  MPI_Reduce(share, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  int bad = 0;
  if (!rank) {
    float *u = calloc(total + 2, sizeof(float)),
          *v = calloc(total + 2, sizeof(float));
    if (!u || !v) MPI_Abort(MPI_COMM_WORLD, 1);
    for (long g = 0; g < total; ++g) u[g + 1] = init(g, total);
    for (int t = 0; t < steps; ++t) {
      for (long i = 1; i <= total; ++i)
        v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0f;
      float *w = u;
      u = v;
      v = w;
    }
    for (long g = 0; g < total && !bad; ++g)
      if (fabsf(all[g] - u[g + 1]) > 1e-5f * (1.0f + fabsf(u[g + 1]))) {
        printf("cell %ld: %g, serial %g\n", g, all[g], u[g + 1]);
        bad = 1;
      }
    printf("%d ranks x %u cells, %d steps: %s\n", nranks, len, steps,
           bad ? "WRONG" : "matches the serial run");
    printf("time per step: %.3f ms\n", per_step * 1e3);
    if (timed && nranks > 1)
      printf("communication hidden behind the interior: %.0f%% (%.3f of "
             "%.3f ms per rank and step)\n",
             sum[0] > 0 ? 100.0 * sum[1] / sum[0] : 0.0,
             sum[1] * 1e3 / nranks / steps, sum[0] * 1e3 / nranks / steps);
    else if (!timed)
      printf("no timing on this device (clsErrorNotSupported)\n");
    free(u);
    free(v);
    free(all);
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);

  CHECK(clsEventDestroy(ev_edge));
  CHECK(clsEventDestroy(ev_b));
  CHECK(clsEventDestroy(ev_int));
  CHECK(clsEventDestroy(i0));
  CHECK(clsEventDestroy(i1));
  CHECK(clsStreamDestroy(si));
  CHECK(clsStreamDestroy(sb));
  CHECK(clsModuleUnload(mod));
  for (int b = 0; b < 2; ++b) CHECK(clsFree(buf[b]));
  CHECK(clsFreeHost(send));
  CHECK(clsFreeHost(recv));
  free(h);
  MPI_Finalize();
  return bad;
}
