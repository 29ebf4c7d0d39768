/*
 * engine.h - the one contract of the SCC engines (internal to gpu/), after
 * Storm's performSccDecomposition(matrix, options{subsystem, choices},
 * result, cache): every engine decomposes the subgraph of a model on the
 * device given by live states and enabled choices, optionally with region
 * hints, into component ids; its device memory is planned by the code that
 * carves it (memory.h), so the need is known before anything is allocated.
 * Storm's cache is the model's transpose (model_transpose), planned once by
 * the decomposer and built at most once for the engine and the caller.
 * Callers (gpu-scc, the MEC schemes of gpu/mec, gpu-vi) use scc_decomposer
 * only; engines live in gpu/scc/<name>/ and share gpu/common and gpu/scc/peel.
 *
 * Edges of the subgraph: the transitions of enabled choices between live
 * states (self-loops included; they never join two states).  MEC goal: the
 * maximal end components of the subgraph (FMSD Definitions 4-5; a choice
 * with a transition out of the live states is in none), for engines that
 * find them (finds_mecs); the others serve the round-based scheme.
 */
#ifndef GPU_SCC_ENGINE_H
#define GPU_SCC_ENGINE_H

#include <memory>
#include <stdint.h>

#include "memory.h"
#include "model.h"
#include "scc.h"

namespace gpu {

enum class scc_goal { sccs, mecs };

/* Storm's options{subsystem, choices}: the part of the model to decompose.
 * Every array is on the device; NULL means "all" or "none". */
struct scc_subsystem {
    const uint8_t *live = nullptr;       /* [n] nonzero: the state takes part */
    const uint32_t *enabled = nullptr;   /* [c] nonzero: the choice takes part */
    const uint32_t *region = nullptr;    /* [n] hints: states with different hints are in no SCC together */
    const uint8_t *pivot_hint = nullptr; /* [n] preferred pivots (fb: the J sets, FMSD 5.3); others ignore it */
};

/* An engine with the buffers it planned (Storm's cache). */
class scc_engine {
  public:
    virtual ~scc_engine() = default;
    virtual const char *name() const = 0;
    virtual bool finds_mecs() const = 0;
    /* Whether decompositions of this goal may read the model's transpose
     * (the peeling's reverse loops): then the decomposer plans one. */
    virtual bool reads_transpose(scc_goal goal) const = 0;
    /* Reserve every device buffer a decomposition of a model of shape s
     * takes (called once measuring, once carving); choices: whether the
     * subsystems will restrict the choices (enabled != NULL). */
    virtual void plan(arena &a, const model_shape &s, scc_goal goal, bool choices) = 0;
    /* component[s] (device, n entries): for every state that takes part, a
     * state of its SCC (MEC goal: of its MEC, or kNoComponent for a state in
     * none) naming it; kNoComponent for states that do not take part.  Adds
     * its counts and phase times to *stats.  transpose: the job's (planned
     * where reads_transpose(goal)), built through it when first needed. */
    virtual int decompose(const device_model &m, const scc_subsystem &sub, scc_goal goal, uint32_t *component,
                          model_transpose *transpose, gpu_scc_stats *stats, csr_status *status) = 0;
};

std::unique_ptr<scc_engine> make_scc_engine(const gpu_scc_options *options);

/* The contract for callers: an engine, planned and allocated for a shape and a goal. */
class scc_decomposer {
  public:
    /* Device bytes init() takes for this shape and goal (0 without a device). */
    static uint64_t bytes_needed(const gpu_scc_options *options, const model_shape &s, scc_goal goal, bool choices,
                                 bool caller_transpose = false);
    /* Choose the engine and allocate its plan (choices: whether subsystems
     * will restrict the choices; caller_transpose: whether the caller reads
     * the model's transpose too, through transpose(): the engine and the
     * caller then share one).  Errors: CSR_ERR_NOMEM, CSR_ERR_DEVICE,
     * CSR_ERR_USAGE (the engine does not find MECs). */
    int init(const gpu_scc_options *options, const model_shape &s, scc_goal goal, bool choices,
             bool caller_transpose, csr_status *status);
    /* One decomposition (any number per init, on models of the shape);
     * stats: counts and times added, resident_s included. */
    int decompose(const device_model &m, const scc_subsystem &sub, uint32_t *component, gpu_scc_stats *stats,
                  csr_status *status);
    /* The model's choice-level transpose, built now unless the engine or an
     * earlier call built it for m (init's caller_transpose).  Errors:
     * CSR_ERR_DEVICE. */
    int transpose(const device_model &m, const graph_transpose **out, csr_status *status);
    const char *engine_name() const { return engine_ ? engine_->name() : "none"; }
    uint64_t planned_bytes() const { return planned_; }
    uint64_t allocated_bytes() const { return arena_.allocated(); }

  private:
    std::unique_ptr<scc_engine> engine_;
    model_transpose transpose_;
    bool has_transpose_ = false; /* transpose_ planned */
    arena arena_;
    scc_goal goal_ = scc_goal::sccs;
    uint64_t planned_ = 0;
};

} /* namespace gpu */

#endif
