/*
 * graph.h - a CUDA graph captured from the launches on a stream (internal
 * to gpu/): the iterations of gpu/reach/iterate.cu and the solver cycles of
 * gpu/reach/pi.cu run as graphs, one host launch for many kernels.
 */
#ifndef GPU_GRAPH_H
#define GPU_GRAPH_H

#include <cuda_runtime.h>

#include "cuda_check.h"

namespace gpu {

/* A graph and its executable instance, destroyed together. */
struct cuda_graph {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cuda_graph() = default;
    cuda_graph(const cuda_graph &) = delete;
    cuda_graph &operator=(const cuda_graph &) = delete;
    ~cuda_graph()
    {
        if (exec)
            cudaGraphExecDestroy(exec);
        if (graph)
            cudaGraphDestroy(graph);
    }
    /* Capture what launches() puts on stream s (it returns CSR_OK or an
     * error code) and instantiate it.  Errors: launches()'s, CSR_ERR_DEVICE. */
    template <class Launches> int capture(cudaStream_t s, Launches launches, csr_status *status)
    {
        CUDA_TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        const int rc = launches();
        const cudaError_t end = cudaStreamEndCapture(s, &graph);
        if (rc != CSR_OK)
            return rc;
        CUDA_TRY(end);
        CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
        return CSR_OK;
    }
};

} /* namespace gpu */

#endif
