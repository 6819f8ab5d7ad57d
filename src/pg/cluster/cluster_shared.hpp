// Folder src/pg/cluster: cluster mode - its slice of shared memory, the node ids generators
// read, the etcd client and the registry worker.
//
// Cluster mode's shared memory (idgen.registry set): what the registry worker
// (cluster_worker.cpp) publishes to the generators, and the requests backends leave for it.
// The worker alone talks to etcd; a backend only reads atomics here, and for a request
// (register a sequencer, attach, detach, a batch of retrospective namespaces) waits for the
// worker's answer at most idgen.max_wait.
//
// Locking notes. Read by every generator call, no lock:
// - deadline_ns: the lease's own deadline (registry_lease.hpp) on CLOCK_MONOTONIC, less the
//   resolution of CLOCK_MONOTONIC_COARSE, which the generators read it with (cluster_admit): a
//   coarse reading lags the precise clock by less than its resolution, so a coarse reading
//   below the published value is a precise one below the deadline. 0 when none. Stored by the
//   worker only.
// - horizon_us: the registry horizon (registry_horizon.hpp): stored in etcd for every node id
//   this server holds before the worker publishes it. Raised by the worker only.
// - server.word and each claim's word: a ClaimWord (state, node id, and a change count that
//   every change moves), stored by the worker only. A generator reads the word before it
//   draws and again after its checks, and hands the id out only if it did not change: a node
//   id given back (snowflake_detach) or lost is never used by a draw that saw the change.
// Under `lock` (a backend's request and the worker's answer; the view's fields): the rest.
// The worker never holds `lock` across a call to etcd.
// - answered: a condition variable (its own spinlock) that the worker broadcasts after it
//   stored an answer (a claim's, a batch, the rebuild's) or raised horizon_us, and after every
//   round; backends wait on it for those (await_worker), not by looking every millisecond.
#pragma once

#include <cstdint>

#include "core/clocks/logical_clock.hpp"
#include "core/registry/claim_word.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/wall_clock.hpp"

extern "C" {
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "utils/wait_event.h"
}

namespace idgen::pg {

using registry::ClaimState;
using registry::ClaimWord;

// What a backend asks the worker to do with a claim (bits of `requests`).
enum ClaimRequest : uint32_t {
    kRegister = 1,  // make sure the cluster has this definition (a conflict is an error)
    kCreate = 2,    // with kRegister: a definition destroyed in the cluster may be defined again
    kAttach = 4,    // hold a node id of it
    kDetach = 8,    // give the node id back and stay detached
    kDestroy = 16,  // destroy it cluster-wide (snowflake_drop, at commit)
};

enum class ClaimAnswer : int32_t { none = 0, ok, conflict, destroyed, no_free_node, failed };

constexpr int kDefinitionText = 192;  // the definition as canonical JSON
constexpr int kErrorText = 256;

struct Claim {
    // Set under lock when the claim is made (claims are never removed) and never changed after,
    // so that a reader that took claim_count under lock may read it without:
    char name[NAMEDATALEN];
    // Under lock:
    char definition[kDefinitionText];  // set when registered; changes only when defined again
    int32_t live_nodes;                // node ids 0 .. live_nodes - 1 are live (the rest backfill)
    bool wanted;                       // hold a node id (set by use and snowflake_attach)
    uint32_t requests;                 // ClaimRequest bits not yet taken by the worker
    bool destroying;                   // the worker took a kDestroy and has not done it yet
    char dropped[kDefinitionText];     // the definition a kDestroy destroys ('': whichever is there)
    uint64_t asked;                    // bumped by every request
    uint64_t answered;                 // `asked` as of the worker's last answer
    ClaimAnswer answer;
    char detail[kErrorText];  // the answer's detail (a conflicting definition, an error)
    // Atomic, stored by the worker only (ClaimWord):
    alignas(kCacheLine) uint64_t word;
};

// Namespaces of retrospective ids leased from the registry for one space (cluster_backfill.hpp;
// the rule is registry_batch.hpp's). Under lock; the worker fills a cell a backend asked for.
constexpr int kBatchSpaces = 16;
struct BatchCell {
    uint32_t kind;       // the space's LeaseKind; 0: a free cell (an idle one may be reused)
    uint64_t key;        // the space's key
    uint64_t limit;      // the space's namespaces
    uint64_t per_local;  // namespaces per namespace of the server's own table (cluster_backfill.hpp)
    uint64_t floor;      // what the server counts beyond what the registry gave it (a moved
                         // database's namespaces): nothing at or below it is handed out
    uint64_t next, end;  // the batch's namespaces not handed out yet: next .. end - 1
    uint64_t taken_end;  // the end of the latest batch the registry gave this cell
    bool used_up;        // the registry's counter reached the limit
    uint64_t asked;      // bumped by every backend that finds the batch empty
    uint64_t answered;   // `asked` as of the worker's last answer
};

struct ClusterShared {
    LWLock *lock;
    // Atomic, stored by the worker only:
    alignas(kCacheLine) uint64_t deadline_ns;
    uint64_t horizon_us;
    uint64_t server_word;  // ClaimWord of the server's own node id (uuid_v7, unique_timestamp)
    // Under lock:
    alignas(kCacheLine) Latch *worker_latch;  // nullptr until the worker runs
    ConditionVariable answered;               // see the locking notes
    int64_t lease_id;
    int64_t attaches;
    int64_t detaches;
    int32_t servers;  // servers holding a node id in this cluster at the worker's last look (-1: none yet)
    char last_error[kErrorText];
    // The registry forgot (core/registry/registry_generation.hpp): nothing is issued under it until
    // its rebuild. Set and cleared by the worker; the view and the errors read it.
    bool forgotten;
    // idgen_registry_rebuild(): asked by a backend, answered by the worker (ok, and what it did).
    uint64_t rebuild_asked;
    uint64_t rebuild_answered;
    bool rebuild_ok;
    char rebuild_detail[kErrorText];
    BatchCell batches[kBatchSpaces];
    int claim_count;
    Claim claims[FLEXIBLE_ARRAY_MEMBER];
};

// Cluster mode's slice of shared memory, in cluster mode only: its size, and its start with the
// lock module.cpp hands it (without cluster mode nothing is requested and cluster_shared()
// stays nullptr).
Size cluster_shared_size();
void start_cluster_shared(LWLock *lock);
ClusterShared *cluster_shared();  // nullptr without cluster mode
// cluster_shared() for a function named `what` that needs cluster mode (55000 without it).
ClusterShared *require_cluster(const char *what);

// The published deadline of a lease whose deadline on monotonic_ns() is deadline_ns (0 stays 0).
int64_t published_deadline_ns(int64_t deadline_ns);

// ---- For the generators (no network, no lock) ----

// The server's node id for a generator named `what`, and the word it was read from; 55000
// "idgen is detached from the registry" unless attached (the deadline is cluster_admit's).
int32_t cluster_server_node(ClusterShared *c, const char *what, ClaimWord *seen);

// A call's waits for the registry (registering a sequencer, the registry horizon) share one
// idgen.max_wait: *give_up_ns is 0 until the call first waits, then when it gives up. Whether
// it is past that (monotonic_ns(), read only by a call that waits).
bool gave_up(int64_t *give_up_ns);

// Waits until done() (which takes `lock` itself for what it reads) is true, or gave_up (false).
// The sleep is prepared before the first look, so an answer stored after a look that found none
// ends the sleep that follows (a broadcast wakes every sleeper prepared before it); it is timed
// (kAwaitRecheckMs) so that done() also sees what no broadcast follows, such as a deadline
// passing. Interrupts are served while asleep.
constexpr long kAwaitRecheckMs = 100;
template <typename Done>
bool await_worker(ClusterShared *c, int64_t *give_up_ns, Done done) {
    ConditionVariablePrepareToSleep(&c->answered);
    for (;;) {
        if (done()) break;
        if (gave_up(give_up_ns)) {
            ConditionVariableCancelSleep();
            return false;
        }
        (void)ConditionVariableTimedSleep(&c->answered, kAwaitRecheckMs, PG_WAIT_EXTENSION);
    }
    ConditionVariableCancelSleep();
    return true;
}

// The worker's side: wakes the backends waiting in await_worker (after what they wait for was
// stored).
void answer_backends(ClusterShared *c);

// The claim of sequencer `name` with this server's `definition` (canonical JSON) and live node
// count; 42710 when this server tracks the name with another definition.
Claim *cluster_claim(ClusterShared *c, const char *name, const char *definition, int32_t live_nodes);

// The node id a claim holds for a draw by `what`. A pending claim (first use, or first use
// since the registry worker restarted) is registered and attached first, waiting for the
// worker (gave_up); 42710 when the cluster defines it otherwise; 55000 when detached or destroyed.
int32_t cluster_claim_node(ClusterShared *c, Claim *claim, const char *what, ClaimWord *seen,
                           int64_t *give_up_ns);

// After a draw whose id ends at end_unix_us, made with the node id of word `seen` at `word`:
// true if it may be handed out (waiting, gave_up, for the registry horizon to cover it); false
// if the word changed (draw again); 55000 past the deadline, read on CLOCK_MONOTONIC_COARSE (a
// few ns; a precise read would cost 20 ns per id).
bool cluster_admit(ClusterShared *c, const uint64_t *word, ClaimWord seen, int64_t end_unix_us,
                   const char *what, int64_t *give_up_ns);

// ---- For the SQL functions ----

// snowflake_create: register `definition` cluster-wide (42710 on a conflict).
void cluster_register(ClusterShared *c, const char *name, const char *definition, int32_t live_nodes);
// snowflake_attach / snowflake_detach: the node id held afterwards (-1 when detached).
int32_t cluster_attach(ClusterShared *c, const char *name, const char *definition, int32_t live_nodes);
void cluster_detach(ClusterShared *c, const char *name);
// snowflake_drop: destroy cluster-wide when the transaction commits.
void cluster_destroy_at_commit(const char *name);

// The registry worker (cluster_worker.cpp), registered from _PG_init in cluster mode.
void register_cluster_worker();

// idgen_registry_rebuild(): asks the worker to end the forgotten episode this server seeded for;
// its answer into `answer` (kErrorText bytes); 55000 when there is nothing to rebuild yet, or the
// worker did not answer.
void cluster_rebuild(ClusterShared *c, char *answer);

// A claim by name, or nullptr (for the view).
ClaimWord cluster_claim_word(ClusterShared *c, const char *name, bool *found);

}  // namespace idgen::pg
