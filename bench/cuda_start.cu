/*
 * cuda_start.cu - what a GPU tool's start costs on this host, by part:
 * the driver's initialisation (cudaGetDeviceCount: cuInit over every visible
 * device), each device's context (cudaFree(0) after cudaSetDevice), one after
 * the other or a thread a device at once, and peer access enabled between
 * every pair.  Seconds, one line each; the process's exit is what a caller
 * timing the whole command sees beyond the last line.
 *   make (builds build/bench/cuda_start), then on the GPU machine:
 *   build/bench/cuda_start [serial|parallel] [peer]
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *make_context(void *arg)
{
    int device = (int)(long)arg;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess)
        e = cudaFree(0);
    return (void *)(long)e;
}

int main(int argc, char **argv)
{
    const int parallel = argc > 1 && !strcmp(argv[1], "parallel");
    const int peer = argc > 2 && !strcmp(argv[2], "peer");
    double t0 = now();
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "cuda_start: no CUDA device\n");
        return 1;
    }
    double t1 = now();
    printf("driver init (%d devices): %.3f s\n", count, t1 - t0);
    pthread_t thread[64];
    int started = 0;
    for (int d = 0; d < count && d < 64; d++) {
        if (parallel && pthread_create(&thread[d], NULL, make_context, (void *)(long)d) == 0)
            started++;
        else if (make_context((void *)(long)d) != (void *)(long)cudaSuccess) {
            fprintf(stderr, "cuda_start: device %d: no context\n", d);
            return 1;
        }
    }
    for (int d = 0; d < started; d++)
        pthread_join(thread[d], NULL);
    double t2 = now();
    printf("%s contexts: %.3f s\n", parallel ? "parallel" : "serial", t2 - t1);
    if (peer) {
        for (int a = 0; a < count && a < 64; a++)
            for (int b = 0; b < count && b < 64; b++) {
                int can = 0;
                if (a != b && cudaDeviceCanAccessPeer(&can, a, b) == cudaSuccess && can) {
                    cudaSetDevice(a);
                    cudaDeviceEnablePeerAccess(b, 0);
                }
            }
        double t3 = now();
        printf("peer access: %.3f s\n", t3 - t2);
    }
    fflush(stdout);
    return 0;
}
