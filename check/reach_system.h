/*
 * reach_system.h - what every solver of a reachability system shares, on
 * the host and (compiled by nvcc) on the device: the system of equations,
 * the options and stopping rule, the solver's signature, and the constants
 * and floating-point bounds of certified policy iteration.  The query layer
 * (check/reach.h) builds systems; the sequential references (ref/reach_ref.h)
 * and the GPU solvers (gpu/reach/) solve them.
 *
 * A system (Berger 2014, ch. 2.5-2.7 and 3; Baier & Katoen ch. 10.6):
 * x(s) = opt over choices k of s of (r(k) + sum p * x(target)) for the
 * states with fixed[s] == 0, opt = max or min; fixed states keep their
 * bounds.
 */
#ifndef REACH_SYSTEM_H
#define REACH_SYSTEM_H

#include <math.h>
#include <stdint.h>

#include "csr.h"

#ifdef __cplusplus
extern "C" {
#endif

enum reach_class { REACH_MAYBE = 0, REACH_NO = 1, REACH_YES = 2 };
/*
 * REACH_II: interval iteration (Haddad & Monmege 2018; Baier, Klein,
 * Leuschner, Parker & Wunderlich, CAV 2017): a lower bound iterated from 0
 * and an upper bound from 1 on the maybe states until for every maybe state
 * u - l <= eps u (relative, default) or <= eps (absolute); the answer (l +
 * u) / 2 is within eps/2 (absolute) or eps / (2 (1 - eps)) (relative) of the
 * exact value, up to rounding.  Min: Prob0E leaves no end component among
 * the maybe states; max: their MECs are collapsed.
 * REACH_OVI: optimistic value iteration (Hartmanns & Kaminski, CAV 2020):
 * value iteration from below, then a guessed upper bound verified as a
 * pre-fixpoint (B(u) <= u) and narrowed as in interval iteration; the same
 * guarantee.
 * REACH_PI: certified policy iteration (ref/reach_pi.c): interval iteration
 * in Jacobi order for a while, then the optimal scheduler by policy
 * iteration with each scheduler's chain solved by IDR(s), and bounds l <=
 * value <= u certified by one Bellman step each (a post- and a pre-fixpoint,
 * with floating-point error bounds); interval iteration from them where
 * they miss eps.  The same guarantee.
 * REACH_VI: plain value iteration from below (PRISM's and Berger's): stops
 * when no value changed by more than eps in one iteration; bounds nothing.
 */
enum reach_method { REACH_II = 0, REACH_VI = 1, REACH_OVI = 2, REACH_PI = 3 };
#define REACH_NO_MEC UINT32_MAX
#define REACH_DEFAULT_EPSILON 1e-6
#define REACH_DEFAULT_MAX_ITERATIONS 1000000u

/* What certified policy iteration (REACH_PI) did, summed over the systems
 * it was tried on. */
typedef struct reach_pi_stats {
    uint64_t attempts;  /* systems it was tried on */
    uint64_t certified; /* of these, certified within epsilon (interval iteration not needed) */
    uint64_t jacobi;    /* Jacobi interval iterations before the policies */
    uint64_t steps;     /* policy evaluations after the first */
    uint64_t matvecs;   /* products with a scheduler's matrix: the IDR(s) solves of values and exit times */
    uint64_t rounds;    /* exit time solved again for ties */
    uint64_t palette;   /* of the attempts, those whose probabilities were read by index from a palette (CPU) */
    double certificate; /* the largest d of a certificate that held */
} reach_pi_stats;

/* What the topological solver (reach_solve_topological) did, summed over
 * the systems it solved. */
typedef struct reach_topo_stats {
    uint64_t systems; /* systems solved SCC by SCC */
    uint64_t sccs;    /* SCCs of their unfixed states */
    uint64_t alone;   /* states solved outside the cores: alone by one step each, or in their SCC */
    uint64_t sccs_alone; /* SCCs of several states that converged on their own */
    uint64_t core;    /* states iterated, in cores */
    uint64_t cores;   /* cores: the systems they were iterated in (one after the other) */
    uint64_t whole;   /* systems whose bounds still missed epsilon, finished whole */
    uint64_t gauss_seidel; /* SCCs alone and cores that Gauss-Seidel interval iteration solved */
} reach_topo_stats;

typedef struct reach_options {
    int method;              /* enum reach_method */
    int relative;            /* 1: relative differences (default), 0: absolute */
    double epsilon;          /* > 0 */
    uint64_t max_iterations; /* per system; reaching it is CSR_ERR_NOT_CONVERGED */
    reach_pi_stats *pi_stats; /* REACH_PI: what it did, added (NULL: not kept) */
    int topological;          /* 1 (default): SCC by SCC where the engine offers it (the CPU's:
                                 reach_solve_topological); 0: each system whole */
    reach_topo_stats *topo_stats; /* what it did, added (NULL: not kept) */
    int pi_warmup_early;      /* REACH_PI: 1: the Jacobi iterations before the policies end after 32 where
                                 an expected reward has no upper bound yet (the topological solver's cores);
                                 2: none (its cores of one choice a state: one policy, one solve);
                                 0 (default): REACH_PI_JACOBI unless they meet epsilon */
} reach_options;

void reach_default_options(reach_options *options);

/*
 * A system over num_states states.  Shapes as in csr_model: state_choices
 * u64[n+1], choice_transitions u64[c+1], targets u32[t], probabilities
 * f64[t]; fixed u8[n] (nonzero: the state keeps its bounds).  For Pmax
 * interval iteration, mec[s] (u32[n]) is the MEC of a maybe state, dense in
 * [0, num_mecs), or REACH_NO_MEC, and leaving[k] (u8[c]) whether choice k
 * leaves its state's MEC (NULL, NULL: no MECs).  choice_reward f64[c]:
 * expected rewards, each choice's reward (its state's plus its own) added to
 * its value; NULL: probabilities.  Fixed states may hold INFINITY (both
 * bounds) for rewards.
 */
typedef struct reach_system {
    uint64_t num_states, num_choices, num_transitions;
    const uint64_t *state_choices, *choice_transitions;
    const uint32_t *targets;
    const double *probabilities;
    const uint8_t *fixed;
    const uint32_t *mec;
    const uint8_t *leaving;
    uint64_t num_mecs;
    int maximize;
    const double *choice_reward;
} reach_system;

/*
 * A solver of one system: lower and upper (f64[n]) hold the initial bounds
 * and receive the final ones; epsilon may be tighter than the options' (the
 * split gives earlier groups a tighter one); *iterations and *difference
 * (the largest u - l, or the last change for REACH_VI) receive what it took.
 * Errors: CSR_ERR_NOT_CONVERGED after options->max_iterations,
 * CSR_ERR_STALLED when the bounds stopped changing while still more than
 * epsilon apart (their floating-point resolution), CSR_ERR_NOMEM, the
 * solver's own; the bounds so far are kept either way.
 */
typedef int (*reach_solver)(const reach_system *system, const reach_options *options, double epsilon,
                            double *lower, double *upper, uint64_t *iterations, double *difference, void *ctx);

#ifdef __CUDACC__
#define REACH_HOST_DEVICE __host__ __device__
#else
#define REACH_HOST_DEVICE
#endif

/* The change from older to newer that the stopping rules measure: |newer -
 * older|, relative to the larger of the two when relative (0 when equal);
 * INFINITY where one is infinite and the other not (an expected reward's
 * upper bound not yet found), never NaN. */
static inline REACH_HOST_DEVICE double reach_difference(double newer, double older, int relative)
{
    double d = fabs(newer - older);
    if (!(d <= 1.79769313486231570815e308)) /* infinite or NaN */
        return INFINITY;
    return relative && d > 0.0 ? d / fabs(newer > older ? newer : older) : d;
}

/* Optimistic value iteration's guesses of an upper bound before it hands
 * over (to certified policy iteration, or fails with the bounds reached):
 * a guess that cannot be verified, as where a Bellman sum of the guess
 * exceeds it by rounding alone, would otherwise be guessed again forever. */
#define REACH_OVI_MAX_GUESSES 16
#define REACH_OVI_MIN_VERIFY 64 /* sweeps a guess may take to be verified, at least */

/* Whether a guess not verified by the sweep just done is dropped: it crossed
 * the lower bound, the sweep changed nothing, or it has taken more sweeps
 * since it was made (at it) than value iteration took to make it (at
 * guess_at, from phase_start), at least REACH_OVI_MIN_VERIFY. */
static inline REACH_HOST_DEVICE int reach_ovi_guess_dropped(int crossed, int changed, uint64_t it, uint64_t guess_at,
                                                            uint64_t phase_start)
{
    const uint64_t took = guess_at - phase_start;
    return crossed || !changed || it - guess_at > (took > REACH_OVI_MIN_VERIFY ? took : REACH_OVI_MIN_VERIFY);
}

/* ---- certified policy iteration (REACH_PI; ref/reach_pi.c, gpu/reach/pi.cu) ----
 * The constants both implementations share. */
#define REACH_PI_JACOBI 512u          /* interval iterations in Jacobi order before the policies */
#ifndef REACH_PI_IDR_S
#define REACH_PI_IDR_S 4              /* the dimension of IDR(s)'s shadow space (a build may set another) */
#endif
#define REACH_PI_NOISE 100.0          /* values solved to need / NOISE: closer ties are noise */
#define REACH_PI_MAX_STEPS 32u        /* policy improvements */
#define REACH_PI_MAX_ROUNDS 32u       /* exit time solved again for ties */
#define REACH_PI_MAX_MATVECS 16384u   /* products with a scheduler's matrix, all solves of a system */

/* Shadow vector k of IDR(s) at slot i: a fixed pseudo-random value in
 * [-1/2, 1/2) (splitmix64 of i S + k), the same on the host and the device. */
static inline REACH_HOST_DEVICE double reach_pi_shadow(uint64_t i, unsigned k)
{
    uint64_t z = i * REACH_PI_IDR_S + k + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53 - 0.5;
}

/* A double at most / at least the exact value of a sum of `terms` products
 * p v evaluated in floating point (any order, with or without fused
 * multiply-adds) as sum, abs_sum the same evaluation of sum |p v|: the error
 * is at most gamma_terms * sum |p v| (Higham, Accuracy and Stability of
 * Numerical Algorithms, 2002, section 3.1), here taken twice over and one
 * ulp more.  The certificate of REACH_PI rests on these. */
static inline REACH_HOST_DEVICE double reach_pi_round_down(double sum, double abs_sum, uint64_t terms)
{
    const double err = (double)(terms + 1) * 0x1p-52 * abs_sum;
#ifdef __CUDA_ARCH__
    return __dsub_rd(sum, err); /* rounded towards -infinity */
#else
    return nextafter(sum - err, -INFINITY);
#endif
}

static inline REACH_HOST_DEVICE double reach_pi_round_up(double sum, double abs_sum, uint64_t terms)
{
    const double err = (double)(terms + 1) * 0x1p-52 * abs_sum;
#ifdef __CUDA_ARCH__
    return __dadd_ru(sum, err); /* rounded towards +infinity */
#else
    return nextafter(sum + err, INFINITY);
#endif
}

/* REACH_PI_JACOBI, or CSR_TEST_PI_JACOBI's value where set (the tests take
 * small systems through the policies with fewer). */
uint64_t reach_pi_jacobi_limit(void);

/*
 * Whether certified policy iteration applies to system y with these bounds:
 * no MEC to collapse (the maybe states hold no end component and the
 * fixpoint is unique: Pmin after Prob0, Pmax without MECs, expected rewards
 * after their finite states and zero-reward quotient: Bertsekas &
 * Tsitsiklis' stochastic shortest paths, 1991), and every fixed successor
 * of a maybe state with lower == upper (its value known exactly: not so for
 * the groups of the split).
 */
int reach_pi_eligible(const reach_system *y, const double *lower, const double *upper);

/* Host and device bytes of a system of n states, c choices, t transitions on
 * the GPU (gpu/reach/: the CSR with u64 offsets, both bounds, the flags, the
 * MEC arrays, the list of maybe states, differences and CUB's reduction
 * space): about 12t + 9c + 57n + 1 MiB; the split's budget is measured in it. */
uint64_t reach_system_bytes(uint64_t n, uint64_t c, uint64_t t);

#ifdef __cplusplus
}
#endif

#endif
