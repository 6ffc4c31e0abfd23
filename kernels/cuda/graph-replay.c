/* graph-replay.c: how an op cell's current config is timed (device.h).  By default each
 * config's launches are captured into CUDA graphs when it is prepared (one launch for cold
 * samples, the warm batch for warm ones) and a sample replays a graph between two events, so
 * it times the GPU's work and not the host's: a legacy cuDNN call costs about 190 us of host
 * time, more than many of its kernels, and a batch of them on the stream timed the host
 * (docs/BENCHMARKS.md, 2026-11-23).  Where a capture fails, or HARNESS_CUDA_OP_TIMING=stream
 * asks for it, the launches go on the stream as before; each config's choice is counted and
 * every op cell's is recorded (docs/kernels.md, "Timing"). */
#include "config.h"
#include "kernels/cuda/device.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"

/* The op timing HARNESS_CUDA_OP_TIMING asks for: 1 graph (unset, empty or "graph"), 0
 * stream; -1 with *cause for any other value. */
int cuda_replay_mode(char **cause)
{
	const char *v = getenv("HARNESS_CUDA_OP_TIMING");
	if (!v || !*v || !strcmp(v, "graph"))
		return 1;
	if (!strcmp(v, "stream"))
		return 0;
	*cause = xasprintf("HARNESS_CUDA_OP_TIMING='%s': expected 'graph' (the default) or "
			   "'stream'", v);
	return -1;
}

void cuda_replay_release(struct cuda_cell *c)
{
	if (c->gn && c->gn != c->g1)
		cudaGraphExecDestroy(c->gn);
	if (c->g1)
		cudaGraphExecDestroy(c->g1);
	c->g1 = c->gn = NULL;
	c->graph = 0;
}

/* The driver's name of each kernel node of g, each after a space onto out, "?" for one
 * it cannot name (entry points of CUDA 12.3, looked up once by cuda_driver_fn; a driver
 * without one names nothing, which is no error). */
static void kernel_names(cudaGraph_t g, struct sbuf *out)
{
	static PFN_cuGraphKernelNodeGetParams_v12000 params;
	static PFN_cuFuncGetName_v12030 func_name;
	static PFN_cuKernelGetName_v12030 kernel_name;
	static int looked;
	if (!looked) {
		const struct {
			const char *name;
			int version;
			void **fn;
		} want[] = { { "cuGraphKernelNodeGetParams", 12000, (void **)&params },
			     { "cuFuncGetName", 12030, (void **)&func_name },
			     { "cuKernelGetName", 12030, (void **)&kernel_name } };
		looked = 1;
		for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
			char *why = NULL;
			if (cuda_driver_fn(want[i].name, want[i].version, want[i].fn, &why))
				free(why);
		}
		cudaGetLastError();
	}
	size_t n = 0;
	cudaGraphNode_t nodes[16];
	if (cudaGraphGetNodes(g, NULL, &n) != cudaSuccess || n > 16 ||
	    cudaGraphGetNodes(g, nodes, &n) != cudaSuccess)
		n = 0, sbuf_addf(out, " ?");
	for (size_t i = 0; i < n; i++) {
		enum cudaGraphNodeType t;
		CUDA_KERNEL_NODE_PARAMS p;
		const char *name = NULL;
		if (cudaGraphNodeGetType(nodes[i], &t) != cudaSuccess || t != cudaGraphNodeTypeKernel)
			continue;
		memset(&p, 0, sizeof(p));
		if (params && params((CUgraphNode)nodes[i], &p) == CUDA_SUCCESS) {
			if (p.kern && kernel_name && kernel_name(&name, p.kern) != CUDA_SUCCESS)
				name = NULL;
			if (!name && p.func && func_name && func_name(&name, p.func) != CUDA_SUCCESS)
				name = NULL;
		}
		sbuf_addf(out, " %s", name ? name : "?");
	}
	cudaGetLastError();
}

/* What vendor config c->cur ran (cuDNN's or cuBLASLt's kernels: their tiles and clusters
 * are in the names), captured in g, as c->vendor_kernels ("config: name ...").  Only the
 * first vendor candidate's (the library's heuristic choice, what the `default` mode runs),
 * named at its first capture: every candidate of an exhaustive unit's cells took its info
 * past 64 KiB. */
static void name_vendor(struct cuda_cell *c, cudaGraph_t g)
{
	struct sbuf line;
	if (c->vendor_kernels)
		return;
	sbuf_init(&line);
	config_format(&c->space, &c->cur, &line);
	sbuf_adds(&line, ":");
	kernel_names(g, &line);
	c->vendor_kernels = sbuf_detach(&line);
}

/* n launches of cell c's current config captured into *out (relaxed mode: the launches'
 * host-side calls, cuDNN's and cuBLASLt's included, are not stream work), instantiated and
 * uploaded.  0; 1 with *why (heap) when the launches cannot be captured; -1 with *cause
 * when the device fails. */
static int capture(struct backend *b, struct cuda_cell *c, int64_t n, cudaGraphExec_t *out,
		   char **why, char **cause)
{
	cudaGraph_t g = NULL;
	char *err = NULL;
	int rc = 0;

	*out = NULL;
	if (CUDA_CHECK(RT, cudaStreamBeginCapture(b->stream, cudaStreamCaptureModeRelaxed), cause))
		return -1;
	for (int64_t k = 0; k < n && !rc; k++)
		rc = cuda_cell_run(b, c, &c->cur, c->mod, &err);
	cudaError_t end = cudaStreamEndCapture(b->stream, &g);
	if (rc || end != cudaSuccess) {
		if (g)
			cudaGraphDestroy(g);
		cudaGetLastError();
		*why = xasprintf("the launches cannot be captured into a CUDA graph: %s",
				 err ? err : cuda_status_string(RT, end));
		free(err);
		return 1;
	}
	if (n == 1 && c->cur.vendor && c->cur.vendor_idx == 0)
		name_vendor(c, g);
	cudaError_t e = cudaGraphInstantiate(out, g, 0);
	cudaGraphDestroy(g);
	if (e != cudaSuccess) {
		cudaGetLastError();
		*out = NULL;
		*why = xasprintf("the captured graph cannot be instantiated: %s",
				 cuda_status_string(RT, e));
		return 1;
	}
	return CUDA_CHECK(RT, cudaGraphUpload(*out, b->stream), cause);
}

/* Enqueue one sample's work: graph g, or n launches on the stream when g is NULL. */
static int enqueue(struct backend *b, struct cuda_cell *c, cudaGraphExec_t g, int64_t n,
		   char **cause)
{
	if (g)
		return CUDA_CHECK(RT, cudaGraphLaunch(g, b->stream), cause);
	for (int64_t k = 0; k < n; k++)
		if (cuda_cell_run(b, c, &c->cur, c->mod, cause))
			return -1;
	return 0;
}

/* The event-timed duration of one sample's work after an untimed one, in ns. */
static int time_work(struct backend *b, struct cuda_cell *c, cudaGraphExec_t g, int64_t n,
		     double *ns, char **cause)
{
	float ms = 0;
	if (enqueue(b, c, g, n, cause) ||
	    CUDA_CHECK(RT, cudaEventRecord(b->ev0, b->stream), cause) ||
	    enqueue(b, c, g, n, cause) ||
	    CUDA_CHECK(RT, cudaEventRecord(b->ev1, b->stream), cause) ||
	    CUDA_CHECK(RT, cudaEventSynchronize(b->ev1), cause) ||
	    CUDA_CHECK(RT, cudaEventElapsedTime(&ms, b->ev0, b->ev1), cause))
		return -1;
	*ns = ms * 1e6;
	return 0;
}

/* Warm launches per sample so that a sample lasts BATCH_THRESHOLD_NS, from one launch's ns. */
static int64_t batch_for(double ns)
{
	if (ns >= BATCH_THRESHOLD_NS)
		return 1;
	double n = ceil(BATCH_THRESHOLD_NS / (ns > 500 ? ns : 500));
	return n > BATCH_MAX ? BATCH_MAX : (int64_t)n;
}

int cuda_replay_prepare(struct backend *b, struct cuda_cell *c, char **cause)
{
	char *why = NULL;
	double ns = 0;
	int rc;

	int64_t t0 = util_now_ns();
	cuda_replay_release(c);
	if (b->op_graph) {
		rc = capture(b, c, 1, &c->g1, &why, cause);
		if (!rc)
			rc = time_work(b, c, c->g1, 1, &ns, cause);
		if (!rc) {
			c->launches = batch_for(ns);
			if (c->launches == 1)
				c->gn = c->g1;
			else
				rc = capture(b, c, c->launches, &c->gn, &why, cause);
		}
		if (rc < 0) {
			cuda_replay_release(c);
			return -1;
		}
		if (!rc) {
			c->graph = 1;
			b->graph_configs++;
			b->t_replay_ns += util_now_ns() - t0;
			return 0;
		}
		cuda_replay_release(c); /* rc 1: on the stream instead, the first why kept */
		if (!b->stream_why)
			b->stream_why = xasprintf("%s: %s", c->pub.name, why);
		free(why);
	}
	if (time_work(b, c, NULL, 1, &ns, cause))
		return -1;
	c->launches = batch_for(ns);
	b->stream_configs++;
	b->t_replay_ns += util_now_ns() - t0;
	return 0;
}

int cuda_replay_sample(struct backend *b, struct cuda_cell *c, int flush, struct sample *out,
		     char **cause)
{
	int64_t n = flush ? 1 : c->launches;
	cudaGraphExec_t g = !c->graph ? NULL : flush ? c->g1 : c->gn;
	float ms = 0;
	if (flush && CUDA_CHECK(RT, cudaMemsetAsync(b->flush, (int)(++b->flush_gen & 0xff),
						    b->flush_len, b->stream), cause))
		return -1;
	if (CUDA_CHECK(RT, cudaEventRecord(b->ev0, b->stream), cause) ||
	    enqueue(b, c, g, n, cause) ||
	    CUDA_CHECK(RT, cudaEventRecord(b->ev1, b->stream), cause) ||
	    CUDA_CHECK(RT, cudaEventSynchronize(b->ev1), cause) ||
	    CUDA_CHECK(RT, cudaEventElapsedTime(&ms, b->ev0, b->ev1), cause))
		return -1;
	out->ns = llround((double)ms * 1e6);
	out->launches = n;
	/* read right after the sample's end: the clock the kernels ran at (clocks move over
	 * milliseconds, the read takes microseconds) */
	cuda_nvml_sample(b->nvml, &out->clock_mhz, &out->throttle, &out->clock_reasons);
	return 0;
}

void cuda_replay_describe(const struct backend *b, struct sbuf *out)
{
	sbuf_addf(out, "op_timing_graph_configs=%" PRId64 "\nop_timing_stream_configs=%" PRId64
		  "\n", b->graph_configs, b->stream_configs);
	if (b->stream_why)
		sbuf_addf(out, "op_timing_fallback=%s\n", b->stream_why);
	sbuf_addf(out, "setup_data_ns=%" PRId64 "\nsetup_dnn_ns=%" PRId64 "\nsetup_replay_ns=%"
		  PRId64 "\nsetup_model_ns=%" PRId64 "\n", b->t_data_ns, b->t_dnn_ns,
		  b->t_replay_ns, b->t_model_ns);
	for (size_t i = 0; i < b->ncells; i++) {
		const struct cuda_cell *c = b->cells[i];
		if (!c->e2e && c->has_impl)
			sbuf_addf(out, "op_timing.%zu=%s launches=%" PRId64 " %s\n", i,
				  c->graph ? "graph" : "stream", c->launches, c->pub.name);
		if (c->vendor_kernels) /* the vendor's kernels: "config: name ..." */
			sbuf_addf(out, "vendor_kernels.%zu=%s\n", i, c->vendor_kernels);
	}
}
