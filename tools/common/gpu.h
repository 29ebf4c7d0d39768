/*
 * gpu.h - CUDA device handling shared by the GPU tools.
 */
#ifndef GPU_H
#define GPU_H

#ifdef __cplusplus
extern "C" {
#endif

/* Make CUDA device `device` current.  Returns 0, or prints why it cannot
 * ("no CUDA device; use --cpu for the CPU reference", "no CUDA device N") and
 * returns EXIT_USAGE (2). */
int gpu_select_device(int device);

#ifdef __cplusplus
}
#endif

#endif
