/*
 * exchange.h - the parts of a partitioned model on their devices and the
 * exchange of their foreign states' data (internal to gpu/multi/; the
 * design in format/MULTI-GPU.md): each part a device and a stream, its send
 * list and exchange buffer (part_base, which each user's part extends), and
 * the transfers between them (parted): a pull (gather on the owner, one
 * transfer a pair of parts into the reader's foreign slice) and its
 * reverse, through NCCL's ncclSend/ncclRecv where every part has a device
 * of its own, else device copies (cudaMemcpyPeerAsync: the simulated mode).
 * With peer access (every pair of the devices maps the other's memory with
 * native atomics, as over NVLink, or one device) a pull is one kernel a
 * pair on the reader, reading the owner's values through its send list in
 * place, and the label propagation and trimming of parts.cu raise and
 * lower the owners' labels and counts directly (no rounds).  Used by parts.cu (SCCs, MECs) and reach_parts.cu
 * (value iteration).
 */
#ifndef GPU_MULTI_EXCHANGE_H
#define GPU_MULTI_EXCHANGE_H

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <memory>
#include <vector>

#include "clock.h"
#include "cuda_check.h"
#include "launch.h"
#include "memory.h"
#include "multi.h"
#include "partition.h"

namespace multi {

using gpu::device_array;
using gpu::grid_for;
using gpu::thread_count;
using gpu::thread_index;

constexpr int kThreads = 256;

/* ---- NCCL, loaded when asked for ---------------------------------------------- */

/* Whether P parts get a device each, no device twice (NCCL's condition). */
static inline bool parts_on_distinct_devices(const gpu_parts_options *o, uint32_t P)
{
    bool distinct = (uint32_t)o->num_devices >= P;
    for (int a = 0; distinct && a < o->num_devices; a++)
        for (int b = a + 1; b < o->num_devices; b++)
            distinct = distinct && o->devices[a] != o->devices[b];
    return distinct;
}

static inline int nccl_placement_refused(const gpu_parts_options *o, uint32_t P, csr_status *status)
{
    return csr_fail(status, CSR_ERR_USAGE,
                    "%u parts on %d devices: NCCL takes one part a device, each device once (use copies)", P,
                    o->num_devices);
}

/* The few NCCL entry points the exchange uses (nccl.h's signatures with
 * opaque handles), from libnccl.so.2. */
typedef struct nccl_comm *nccl_comm_t;
struct nccl_api {
    void *lib = nullptr;
    int (*comm_init_all)(nccl_comm_t *, int, const int *) = nullptr;
    int (*comm_destroy)(nccl_comm_t) = nullptr;
    int (*group_start)() = nullptr;
    int (*group_end)() = nullptr;
    int (*send)(const void *, size_t, int, int, nccl_comm_t, cudaStream_t) = nullptr;
    int (*recv)(void *, size_t, int, int, nccl_comm_t, cudaStream_t) = nullptr;
    const char *(*error_string)(int) = nullptr;
    bool load()
    {
        lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            return false;
        comm_init_all = (int (*)(nccl_comm_t *, int, const int *))dlsym(lib, "ncclCommInitAll");
        comm_destroy = (int (*)(nccl_comm_t))dlsym(lib, "ncclCommDestroy");
        group_start = (int (*)())dlsym(lib, "ncclGroupStart");
        group_end = (int (*)())dlsym(lib, "ncclGroupEnd");
        send = (int (*)(const void *, size_t, int, int, nccl_comm_t, cudaStream_t))dlsym(lib, "ncclSend");
        recv = (int (*)(void *, size_t, int, int, nccl_comm_t, cudaStream_t))dlsym(lib, "ncclRecv");
        error_string = (const char *(*)(int))dlsym(lib, "ncclGetErrorString");
        return comm_init_all && comm_destroy && group_start && group_end && send && recv && error_string;
    }
    ~nccl_api()
    {
        if (lib)
            dlclose(lib);
    }
};
constexpr int kNcclUint8 = 1; /* ncclDataType_t ncclUint8 (nccl.h) */

#define NCCL_TRY(api, call)                                                                                  \
    do {                                                                                                     \
        int e_ = (call);                                                                                     \
        if (e_ != 0)                                                                                         \
            return csr_fail(status, CSR_ERR_DEVICE, "NCCL: %s (%s:%d)", (api).error_string(e_), __FILE__, \
                            __LINE__);                                                                       \
    } while (0)

/* Exchange: buffer[k] = values[index[k]], k < count (elements of Size bytes). */
template <int Size> struct word;
template <> struct word<1> { typedef uint8_t type; };
template <> struct word<4> { typedef uint32_t type; };
template <> struct word<8> { typedef uint64_t type; };
template <> struct word<16> { typedef ulonglong2 type; };

/* A part's slices of the model's offsets made local: crow[i] -=
 * first_choice (i <= ns), ctr[i] -= first_transition (i <= nc). */
static __global__ void local_choices(uint64_t ns, uint64_t nc, uint64_t first_choice, uint64_t first_transition,
                                     uint64_t *crow, uint64_t *ctr)
{
    for (uint64_t i = thread_index(); i <= (ns > nc ? ns : nc); i += thread_count()) {
        if (i <= ns)
            crow[i] -= first_choice;
        if (i <= nc)
            ctr[i] -= first_transition;
    }
}

template <int Size>
static __global__ void gather(uint64_t count, const uint32_t *__restrict__ index,
                              const typename word<Size>::type *__restrict__ values, typename word<Size>::type *buffer)
{
    for (uint64_t k = thread_index(); k < count; k += thread_count())
        buffer[k] = values[index[k]];
}

/* What every part has: its device and stream, its own and foreign states,
 * its rows (local offsets and targets), its send list (own indices, by
 * receiver), its exchange buffer, and a receive buffer for staged pulls (nf
 * entries where a user needs one). */
struct part_base {
    int device = 0;
    cudaStream_t stream = nullptr;
    uint64_t first_state = 0, ns = 0, nf = 0, nt = 0, nc = 0;
    device_array<uint64_t> crow;      /* [ns + 1] own states' first choices, local */
    device_array<uint64_t> ctr;       /* [nc + 1] their choices' first transitions, local */
    device_array<uint32_t> target;    /* [nt] local targets: indices into own + foreign */
    device_array<uint32_t> send;      /* [sends] own indices, by receiver */
    device_array<unsigned char> xbuf; /* the exchange buffer: max(sends, receives) x the widest element */
    device_array<uint32_t> rbuf;      /* staged pulls: [nf] in the reader's foreign order */
    part_base() = default;
    /* Part i of p (a partition of m) on device dev: its ranges, a stream,
     * its rows and send list uploaded (the offsets made local on the
     * device), and an exchange buffer of `element` bytes a state for
     * max(sends, foreign) states.  The default stream's work is done when
     * it returns. */
    int open(const csr_model *m, const csr_partition *p, uint32_t i, int dev, uint64_t element, csr_status *status)
    {
        const csr_part &c = p->part[i];
        const uint64_t first = p->send_first[(uint64_t)i * p->parts];
        const uint64_t sends = p->send_first[(uint64_t)(i + 1) * p->parts] - first;
        device = dev;
        first_state = c.first_state;
        ns = c.num_states;
        nf = c.num_foreign;
        nt = c.num_transitions;
        nc = c.num_choices;
        CUDA_TRY(cudaSetDevice(dev));
        CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        TRY(crow.alloc(ns + 1, NULL, status));
        TRY(ctr.alloc(nc + 1, NULL, status));
        TRY(target.alloc(nt, NULL, status));
        TRY(send.alloc(sends, NULL, status));
        TRY(xbuf.alloc(element * (sends > nf ? sends : nf), NULL, status));
        CUDA_TRY(cudaMemcpy(crow.p, m->state_choices + first_state, (ns + 1) * sizeof(uint64_t),
                            cudaMemcpyHostToDevice));
        CUDA_TRY(cudaMemcpy(ctr.p, m->choice_transitions + c.first_choice, (nc + 1) * sizeof(uint64_t),
                            cudaMemcpyHostToDevice));
        local_choices<<<grid_for(ns > nc ? ns + 1 : nc + 1, kThreads), kThreads>>>(ns, nc, c.first_choice,
                                                                                  c.first_transition, crow.p, ctr.p);
        CUDA_TRY_LAUNCH();
        if (nt)
            CUDA_TRY(cudaMemcpy(target.p, c.local_targets, nt * sizeof(uint32_t), cudaMemcpyHostToDevice));
        if (sends)
            CUDA_TRY(cudaMemcpy(send.p, p->send_index + first, sends * sizeof(uint32_t), cudaMemcpyHostToDevice));
        CUDA_TRY(cudaDeviceSynchronize());
        return CSR_OK;
    }
    part_base(const part_base &) = delete;
    part_base &operator=(const part_base &) = delete;
    ~part_base()
    {
        if (stream) {
            cudaSetDevice(device);
            cudaStreamDestroy(stream);
        }
    }
};

/* *peer: whether every pair of the devices that P parts take maps the
 * other's memory with native atomics (cudaDeviceCanAccessPeer and
 * cudaDevP2PAttrNativeAtomicSupported, as over NVLink; PCIe peers do not:
 * the label propagation and trimming raise and lower the owners' words by
 * atomics of system scope; one device always does). */
static inline int peer_capable(const gpu_parts_options *o, uint32_t P, bool *peer, csr_status *status)
{
    const int used = P < (uint32_t)o->num_devices ? (int)P : o->num_devices;
    *peer = true;
    for (int a = 0; a < used && *peer; a++)
        for (int b = 0; b < used && *peer; b++) {
            int can = 1, atomics = 1;
            if (o->devices[a] != o->devices[b]) {
                CUDA_TRY(cudaDeviceCanAccessPeer(&can, o->devices[a], o->devices[b]));
                if (can)
                    CUDA_TRY(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, o->devices[a],
                                                       o->devices[b]));
            }
            *peer = can != 0 && atomics != 0;
        }
    return CSR_OK;
}

/* peer_capable, and where it holds that access enabled in each direction
 * (once a process: an access enabled before is kept). */
static inline int enable_peer_access(const gpu_parts_options *o, uint32_t P, bool *peer, csr_status *status)
{
    const int used = P < (uint32_t)o->num_devices ? (int)P : o->num_devices;
    TRY(peer_capable(o, P, peer, status));
    for (int a = 0; a < used && *peer; a++)
        for (int b = 0; b < used; b++) {
            if (o->devices[a] == o->devices[b])
                continue;
            CUDA_TRY(cudaSetDevice(o->devices[a]));
            cudaError_t e = cudaDeviceEnablePeerAccess(o->devices[b], 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled)
                (void)cudaGetLastError();
            else
                CUDA_TRY(e);
        }
    return CSR_OK;
}

template <class Part> struct parted {
    const csr_partition *p = nullptr;
    std::vector<std::unique_ptr<Part>> part;
    bool nccl = false;
    bool peer = false;            /* the devices map each other's memory (enable_peer_access) */
    nccl_api api;
    std::vector<nccl_comm_t> comm;
    uint64_t exchanged = 0;
    unsigned long long *host_flags = nullptr; /* pinned, 8 bytes a part (copy_flag, sum) */
    ~parted()
    {
        for (nccl_comm_t c : comm)
            if (c)
                api.comm_destroy(c);
        if (host_flags)
            cudaFreeHost(host_flags);
    }

    /* The pinned host words (one a part), made when first needed; part i's
     * flag (device, one unsigned) copied into its word on its stream by
     * copy_flag, read after sync_all by host_flag(i). */
    int pinned(csr_status *status)
    {
        if (!host_flags)
            CUDA_TRY(cudaHostAlloc((void **)&host_flags, part.size() * sizeof *host_flags, cudaHostAllocPortable));
        return CSR_OK;
    }
    int copy_flag(uint32_t i, const unsigned *flag, csr_status *status)
    {
        TRY(pinned(status));
        CUDA_TRY(cudaMemcpyAsync(&host_flags[i], flag, sizeof(unsigned), cudaMemcpyDeviceToHost, part[i]->stream));
        return CSR_OK;
    }
    unsigned host_flag(uint32_t i) const { return *(const unsigned *)&host_flags[i]; }

    /* what o sends r: [a, b) of p->send_index, and its place in o's list */
    uint64_t send_begin(uint32_t o, uint32_t r) const { return p->send_first[(uint64_t)o * p->parts + r]; }
    uint64_t send_end(uint32_t o, uint32_t r) const { return p->send_first[(uint64_t)o * p->parts + r + 1]; }
    uint64_t send_base(uint32_t o) const { return p->send_first[(uint64_t)o * p->parts]; }
    uint64_t sends(uint32_t o) const { return p->send_first[(uint64_t)(o + 1) * p->parts] - send_base(o); }

    int sync_all(csr_status *status)
    {
        for (auto &q : part) {
            CUDA_TRY(cudaSetDevice(q->device));
            CUDA_TRY(cudaStreamSynchronize(q->stream));
        }
        return CSR_OK;
    }

    /* A counter of every part (at(q): its device address) read back and summed. */
    template <typename T, typename F> int sum(F at, T *total, csr_status *status)
    {
        static_assert(sizeof(T) <= sizeof(unsigned long long), "a counter of at most 8 bytes");
        TRY(pinned(status));
        for (size_t i = 0; i < part.size(); i++) {
            CUDA_TRY(cudaSetDevice(part[i]->device));
            CUDA_TRY(cudaMemcpyAsync(&host_flags[i], at(*part[i]), sizeof(T), cudaMemcpyDeviceToHost,
                                     part[i]->stream));
        }
        TRY(sync_all(status));
        *total = 0;
        for (size_t i = 0; i < part.size(); i++)
            *total += *(const T *)&host_flags[i];
        return CSR_OK;
    }

    /* Move count x size bytes from o's src to r's dst (the transfers of one
     * stage: inside one NCCL group when NCCL moves them). */
    int transfer(uint32_t o, const void *src, uint32_t r, void *dst, uint64_t bytes, csr_status *status)
    {
        exchanged += bytes;
        if (nccl) {
            NCCL_TRY(api, api.send(src, bytes, kNcclUint8, (int)r, comm[o], part[o]->stream));
            NCCL_TRY(api, api.recv(dst, bytes, kNcclUint8, (int)o, comm[r], part[r]->stream));
            return CSR_OK;
        }
        CUDA_TRY(cudaSetDevice(part[o]->device));
        CUDA_TRY(cudaMemcpyPeerAsync(dst, part[r]->device, src, part[o]->device, bytes, part[o]->stream));
        return CSR_OK;
    }

    /* One stage of transfers: move(o, r, b, e) for every ordered pair with
     * something on its list ([b, e) of p->send_index), inside one NCCL
     * group when NCCL moves them; then every part synchronised. */
    template <typename F> int transfer_stage(F move, csr_status *status)
    {
        const uint32_t P = p->parts;
        if (nccl)
            NCCL_TRY(api, api.group_start());
        for (uint32_t o = 0; o < P; o++)
            for (uint32_t r = 0; r < P; r++) {
                const uint64_t b = send_begin(o, r), e = send_end(o, r);
                if (b == e)
                    continue;
                int rc = move(o, r, b, e);
                if (rc) {
                    if (nccl)
                        api.group_end();
                    return rc;
                }
            }
        if (nccl)
            NCCL_TRY(api, api.group_end());
        return sync_all(status);
    }

    /* Pull: every reader's foreign copies of array A (own + foreign, Size
     * bytes an element; a(q) gives part q's copy) take their owners' values
     * (staged: into the reader's rbuf, its foreign order, instead); each
     * part's xbuf holds Size bytes a sent state. */
    template <int Size, typename F> int pull(F a, csr_status *status, bool staged = false)
    {
        typedef typename word<Size>::type T;
        const uint32_t P = p->parts;
        if (peer) { /* every reader gathers from its owners in place */
            TRY(sync_all(status));
            for (uint32_t r = 0; r < P; r++) {
                Part &q = *part[r];
                CUDA_TRY(cudaSetDevice(q.device));
                for (uint32_t o = 0; o < P; o++) {
                    const uint64_t b = send_begin(o, r), e = send_end(o, r);
                    if (b == e)
                        continue;
                    T *dst = staged ? (T *)q.rbuf.p + p->part[r].recv_first[o]
                                    : (T *)a(q) + q.ns + p->part[r].recv_first[o];
                    gather<Size><<<grid_for(e - b, kThreads), kThreads, 0, q.stream>>>(
                        e - b, part[o]->send.p + (b - send_base(o)), (const T *)a(*part[o]), dst);
                    CUDA_TRY_LAUNCH();
                    exchanged += (e - b) * Size;
                }
            }
            return sync_all(status);
        }
        for (uint32_t o = 0; o < P; o++) { /* gather into o's buffer, each receiver its slice */
            Part &q = *part[o];
            const uint64_t total = sends(o);
            if (!total)
                continue;
            CUDA_TRY(cudaSetDevice(q.device));
            gather<Size><<<grid_for(total, kThreads), kThreads, 0, q.stream>>>(total, q.send.p, (const T *)a(q),
                                                                               (T *)q.xbuf.p);
            CUDA_TRY_LAUNCH();
        }
        TRY(sync_all(status));
        return transfer_stage(
            [&](uint32_t o, uint32_t r, uint64_t b, uint64_t e) {
                Part &q = *part[r];
                T *dst = staged ? (T *)q.rbuf.p + p->part[r].recv_first[o]
                                : (T *)a(q) + q.ns + p->part[r].recv_first[o];
                return transfer(o, part[o]->xbuf.p + (b - send_base(o)) * Size, r, dst, (e - b) * Size, status);
            },
            status);
    }

    /* Every reader's u32 values of its foreign copies (src(q): part q's
     * array of nf, in its foreign order) into their owners' xbuf, in the
     * order of the owners' send lists. */
    template <typename F> int gather_back(F src, csr_status *status)
    {
        return transfer_stage(
            [&](uint32_t o, uint32_t r, uint64_t b, uint64_t e) {
                return transfer(r, src(*part[r]) + p->part[r].recv_first[o], o,
                                part[o]->xbuf.p + (b - send_base(o)) * 4, (e - b) * 4, status);
            },
            status);
    }
};

/* Open the parts: part i on devices[i % num_devices] through upload(i,
 * device, part) (which creates its stream and buffers), NCCL's
 * communicators where every part has a device of its own (and NCCL was not
 * refused); *exchange names the way, *foreign counts the foreign states,
 * *upload_s the seconds. */
template <class Part, typename F>
int open_exchange(const gpu_parts_options *o, const csr_partition *p, parted<Part> &x, const char **exchange,
                  uint64_t *foreign, double *upload_s, F upload, csr_status *status)
{
    const uint32_t P = p->parts;
    x.p = p;
    const bool distinct = parts_on_distinct_devices(o, P);
    if (o->exchange == GPU_EXCHANGE_NCCL && !distinct)
        return nccl_placement_refused(o, P, status);
    if (o->exchange == GPU_EXCHANGE_PEER || o->exchange == GPU_EXCHANGE_AUTO) {
        TRY(enable_peer_access(o, P, &x.peer, status));
        if (!x.peer && o->exchange == GPU_EXCHANGE_PEER)
            return csr_fail(status, CSR_ERR_USAGE, "peer: the devices do not all map each other's memory with "
                                                   "native atomics (use nccl or copies)");
    }
    if (!x.peer && o->exchange != GPU_EXCHANGE_COPIES && distinct && P > 1) {
        x.nccl = x.api.load();
        if (!x.nccl && o->exchange == GPU_EXCHANGE_NCCL)
            return csr_fail(status, CSR_ERR_USAGE, "NCCL: libnccl.so.2 cannot be loaded: %s", dlerror());
    }
    *exchange = x.peer ? "peer" : x.nccl ? "nccl" : "copies";
    double t = monotonic_seconds();
    for (uint32_t i = 0; i < P; i++) {
        x.part.emplace_back(new (std::nothrow) Part);
        if (!x.part.back())
            return CSR_ERR_NOMEM;
        TRY(upload(i, o->devices[i % o->num_devices], *x.part.back()));
        *foreign += p->part[i].num_foreign;
    }
    if (x.nccl) {
        std::vector<int> devs(o->devices, o->devices + P);
        setenv("NCCL_NVLS_ENABLE", "0", 0); /* no NVLink multicast (format/MULTI-GPU.md) */
        x.comm.assign(P, nullptr);
        NCCL_TRY(x.api, x.api.comm_init_all(x.comm.data(), (int)P, devs.data()));
    }
    *upload_s = monotonic_seconds() - t;
    return CSR_OK;
}

} /* namespace multi */

#endif
