/*
 * gpu.cu - CUDA device handling shared by the GPU tools (gpu.h).
 */
#include <cuda_runtime.h>

#include "gpu.h"
#include "tool.h"

int gpu_select_device(int device)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        tool_error("no CUDA device; use --cpu for the CPU reference");
        return EXIT_USAGE;
    }
    if (device >= count) {
        tool_error("no CUDA device %d (%d present)", device, count);
        return EXIT_USAGE;
    }
    cudaError_t err = cudaSetDevice(device);
    if (err != cudaSuccess) {
        tool_error("CUDA device %d: %s", device, cudaGetErrorString(err));
        return EXIT_USAGE;
    }
    return 0;
}
