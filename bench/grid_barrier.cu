/*
 * grid_barrier.cu - what one grid-wide barrier of a cooperative kernel costs
 * on this GPU, alone and with the level bookkeeping of the persistent kernels
 * (an atomicAdd into a ring counter, the barrier, a volatile read), for
 * several grid sizes of 256 threads.  Microseconds per barrier, best of 3.
 *   make (builds build/bench/grid_barrier), then build/bench/grid_barrier on the GPU machine.
 */
#include <cooperative_groups.h>
#include <stdio.h>

namespace cg = cooperative_groups;

static __global__ void barriers(int count, unsigned long long *ring, int with_counter)
{
    cg::grid_group grid = cg::this_grid();
    unsigned long long got = 0;
    for (int i = 0; i < count; i++) {
        if (with_counter) {
            if (grid.thread_rank() == 0)
                ring[(i + 1) % 3] = 0;
            if (threadIdx.x == 0 && blockIdx.x % 8 == 0)
                atomicAdd(&ring[i % 3], 1ull);
        }
        grid.sync();
        if (with_counter)
            got += *(volatile unsigned long long *)&ring[i % 3];
    }
    if (got == 42)
        ring[0] = got; /* keep the reads */
}

int main(void)
{
    int sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, barriers, 256, 0);
    unsigned long long *ring;
    cudaMalloc(&ring, 3 * sizeof *ring);
    cudaMemset(ring, 0, 3 * sizeof *ring);
    printf("%d SMs, %d blocks of 256 threads per SM at once\n", sms, per_sm);
    int grids[] = {1, 16, 66, 132, 264, 528, sms * per_sm};
    for (int g : grids) {
        if (g > sms * per_sm)
            continue;
        for (int with_counter = 0; with_counter < 2; with_counter++) {
            float best = 1e30f;
            for (int rep = 0; rep < 3; rep++) {
                int count = 10000;
                void *args[] = {&count, &ring, &with_counter};
                cudaEvent_t a, b;
                cudaEventCreate(&a);
                cudaEventCreate(&b);
                cudaEventRecord(a);
                cudaLaunchCooperativeKernel((void *)barriers, g, 256, args, 0, 0);
                cudaEventRecord(b);
                cudaEventSynchronize(b);
                float ms;
                cudaEventElapsedTime(&ms, a, b);
                if (cudaGetLastError() != cudaSuccess) {
                    printf("launch failed\n");
                    return 1;
                }
                if (ms < best)
                    best = ms;
            }
            printf("%5d blocks%s: %.2f us per barrier\n", g, with_counter ? " + ring counter" : "", best * 1e3f / 10000);
        }
    }
    return 0;
}
