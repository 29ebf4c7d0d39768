/*
 * mec_live.h - the MECs of a subsystem of a model already on the device
 * (internal to gpu/; gpu_mec_decompose of mec.h is the public, host-side
 * entry).  gpu-vi's Prob1E (gpu/reach/prob01.cu) decomposes the states that can
 * reach the target without uploading the model a second time.
 */
#ifndef GPU_MEC_LIVE_H
#define GPU_MEC_LIVE_H

#include <stdint.h>

#include "mec.h"
#include "model.h"

namespace gpu {

/*
 * The MECs of the subsystem of m (on the device) given by live (device,
 * u8[n], nonzero: the state takes part) and enabled (device, u32[c],
 * nonzero: the choice may take part; NULL: every choice): the sub-MDP of
 * the live states whose choices are the enabled ones of live states with
 * every transition into a live state (FMSD Definitions 4-5 on that
 * sub-MDP; the zero-reward MECs of expected rewards and reward bounds by
 * enabled), by the scheme and engine of
 * options as gpu_mec_decompose picks them (the interleaved scheme: the MEC
 * goal of the SCC contract over the live states; the round-based one).  mec
 * (device, u32[n]): the smallest state of s's MEC, or GPU_MEC_NONE (not
 * live, or in no MEC).  Adds rounds, removed states and choices and the SCC
 * engine's counts to *stats.  Device memory: what gpu_mec_bytes_needed
 * counts for a model of m's shape with the same options, less the
 * model itself, allocated here and freed on return.  Errors: CSR_ERR_NOMEM (device memory),
 * CSR_ERR_DEVICE (CUDA, text in status).
 */
int mec_decompose_live(const gpu_mec_options *options, const device_model &m, const uint8_t *live,
                       const uint32_t *enabled, uint32_t *mec, gpu_mec_stats *stats, csr_status *status);

} /* namespace gpu */

#endif
