// The registry worker (cluster mode, idgen.registry set): the one process of a server that
// talks to etcd. It holds one lease for the server, keeps it alive every third of its ttl
// (lease_keeper.hpp), claims node ids under it (the server's own, and one per Snowflake
// sequencer in use), keeps each node id's horizon in etcd ahead of the ids (held_nodes.hpp, the
// rules in core/registry/node_holder.hpp),
// registers and destroys sequencer definitions (sequencer_definitions.hpp), leases namespace
// batches (namespace_batches.hpp), notices when etcd forgot and does nothing of the above until
// the registry is rebuilt (generation_keeper.hpp), and publishes all of it to the generators through
// cluster_shared.hpp. This file runs them in rounds (at least every 100 ms), decides from a watch
// on etcd when a round also looks at the cluster again (etcd_watch.hpp,
// core/registry/look_schedule.hpp), and starts and stops the worker.
//
// The order of every step is the argument (registry_lease.hpp, registry_horizon.hpp): the node
// ids' steps are listed in core/registry/node_holder.hpp; the deadline is published from the lease's own
// state after every answer (lease_keeper.hpp), and withdrawn (0) before the lease is revoked at shutdown. No
// part of the worker holds an LWLock across a call to etcd.
//
// C++ objects (strings, JSON) live across calls that may raise a PostgreSQL error (LWLocks,
// raise_generators): such an error longjmps to StartBackgroundWorker's handler, which reports it
// and ends the process, so the objects the longjmp skips die with it (nothing is resumed over
// them); the postmaster starts a new worker, which withdraws what this one published
// (idgen_cluster_worker_main).
#include <cstdint>
#include <cstdlib>
#include <new>

#include "core/base/atomic_word.hpp"
#include "core/layouts/snowflake.hpp"
#include "core/registry/look_schedule.hpp"
#include "core/registry/registry_horizon.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/cluster/cluster_shared.hpp"
#include "pg/cluster/etcd_watch.hpp"
#include "pg/cluster/generation_keeper.hpp"
#include "pg/cluster/held_nodes.hpp"
#include "pg/cluster/lease_keeper.hpp"
#include "pg/cluster/namespace_batches.hpp"
#include "pg/cluster/registry_connection.hpp"
#include "pg/cluster/registry_password.hpp"
#include "pg/cluster/sequencer_definitions.hpp"
#include "pg/shared_memory/shared_state.hpp"

extern "C" {
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "utils/guc.h"
#include "utils/wait_event.h"

PGDLLEXPORT void idgen_cluster_worker_main(Datum);
}

namespace idgen::pg {
namespace {

struct Worker {
    RegistryConnection r;
    HeldNodes held;
    LeaseKeeper keeper;
    SequencerDefinitions definitions;
    NamespaceBatches batches;
    GenerationKeeper generation;
    // What tells the worker to look at the cluster again (definitions, free node ids, servers):
    // a watch on the node and sequencer keys, or once a second without one.
    etcd::Watch watch;
    registry::LookSchedule looks;
    bool usable = false;  // as last published to the view's counters

    Worker(ClusterShared *cs, SharedState *ss)
        : r(cs, ss),
          held(r),
          keeper{r, held},
          definitions(r, held),
          batches{r, keeper},
          generation{r, held, keeper, batches},
          watch(r.etcd, r.prefix + "node/", r.prefix + "sequencer/") {}

    // The view's counters: an attach when the server's node id becomes usable, a detach when
    // it stops being usable.
    void count_transitions(int64_t now) {
        const bool now_usable = held.server.held && r.lease.held(now);
        if (now_usable == usable) return;
        usable = now_usable;
        LWLockAcquire(r.c->lock, LW_EXCLUSIVE);
        if (usable) {
            r.c->attaches++;
            r.c->last_error[0] = '\0';
        } else {
            r.c->detaches++;
        }
        LWLockRelease(r.c->lock);
    }

    // How many servers hold a node id in this cluster (their keys under node/server/), at each
    // look, for the view: a server whose cluster name has a typo finds itself alone.
    bool count_servers() {
        std::vector<etcd::KeyValue> servers;
        if (!r.etcd.range(r.prefix + "node/server/", &servers))
            return false;  // the view keeps the last count
        LWLockAcquire(r.c->lock, LW_EXCLUSIVE);
        r.c->servers = static_cast<int32_t>(servers.size());
        LWLockRelease(r.c->lock);
        return true;
    }

    // The watch's news, into the schedule of looks. A watch that was up and ended is logged
    // (the worker looks every second until it is back); one that cannot start is not, each time.
    void follow_watch(int64_t now) {
        const registry::WatchNews news = watch.pump(now);
        if (looks.heard(news, now))
            ereport(
                LOG,
                (errmsg(
                     "idgen registry worker: the watch on etcd ended, looking every second until it is back"),
                 errdetail("%s", news.error.c_str())));
    }

    void round() {
        const int64_t now = monotonic_ns();
        keeper.keep_lease(now);
        follow_watch(now);
        const bool look = looks.due(now);
        generation.look(now, look);  // before anything is claimed, moved or served under it
        generation.serve_rebuild();
        bool looked_ok = false;
        if (generation.usable && r.lease_id != 0 && r.lease.held(now)) {
            if (!held.server.held) held.claim_node(-1, snowflake::kMaxNodes, node_id);
            LWLockAcquire(r.c->lock, LW_SHARED);
            const int count = r.c->claim_count;
            LWLockRelease(r.c->lock);
            for (int i = 0; i < count; i++) {
                keeper.keep_lease(monotonic_ns());  // many claims in one round must not starve the lease
                if (r.lease_id == 0) break;
                definitions.serve(i, look);
            }
            held.retry_deletes();
            if (look) {
                const bool definitions_read = definitions.refresh();
                const bool servers_read = count_servers();
                looked_ok = definitions_read && servers_read &&
                            r.lease_id != 0;  // (a lease lost cut the claims short)
            }
            if (registry::needs_advance(static_cast<int64_t>(atomic_load(&r.c->horizon_us)),
                                        generator_now_unix_ns(r.s) / 1000, held.reserve_us()))
                held.advance(static_cast<int64_t>(atomic_load(&r.c->horizon_us)));
        }
        if (look) looks.looked(monotonic_ns(), looked_ok);
        if (generation.usable)
            batches.serve_batches();  // after the lease's own business, which must not wait behind it
        count_transitions(monotonic_ns());
    }

    // At shutdown: every node id withdrawn (the deadline first), their last horizons stored,
    // then the lease revoked (the keys go with it; the horizons stay). A fast shutdown waits for
    // this worker, and with etcd unreachable each call costs a timeout per endpoint: so nothing is
    // written once the lease is past its deadline, and nothing more after the first call etcd
    // does not answer. What is left undone is safe: a stored horizon not lowered stays the
    // published one (higher), and the keys expire with the lease.
    void shutdown() {
        if (r.lease_id == 0) return;
        atomic_store(&r.c->deadline_ns, uint64_t{0});
        held.withdraw_all(/*forget=*/false);
        if (!r.lease.held(monotonic_ns())) return;
        if (!held.store_last_horizons()) return;
        r.etcd.revoke(r.lease_id);
    }
};

}  // namespace
}  // namespace idgen::pg

using namespace idgen;
using namespace idgen::pg;

// Under -fno-exceptions a failed operator new (a string, JSON) would end in std::terminate:
// SIGABRT, which the postmaster answers with a crash restart of every backend. A worker that
// cannot allocate exits alone instead, with FATAL (exit code 1), and the postmaster starts a new
// one after bgw_restart_time, which withdraws what this one published, as after any error.
#ifdef IDGEN_TEST_HOOKS
static void *volatile injected_allocation;  // where the test's allocation goes: volatile, so it is made
#endif
[[noreturn]] static void exit_out_of_memory() {
    ereport(FATAL, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory in idgen's registry worker")));
    pg_unreachable();
}

void idgen_cluster_worker_main(Datum) {
    std::set_new_handler(exit_out_of_memory);
#ifdef IDGEN_TEST_HOOKS
    // Fault injection for test/tap/108_worker_out_of_memory.pl, from the server's environment, in
    // test builds only (make TEST_HOOKS=yes).
    if (getenv("IDGEN_TEST_WORKER_OUT_OF_MEMORY") != nullptr)
        injected_allocation = ::operator new(SIZE_MAX / 2);
#endif
    pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    BackgroundWorkerUnblockSignals();
    ClusterShared *c = cluster_shared();
    SharedState *s = shared_state_or_null();
    if (c == nullptr || s == nullptr) proc_exit(0);  // not in cluster mode: never again
    static Worker *worker = new Worker(c, s);        // lives as long as the process
    // A worker restarted after a failure knows nothing of its predecessor's lease, which etcd
    // may expire any moment: nothing it published may stay in use. Every node id is withdrawn
    // (claims go back to pending, so their next use asks to register and attach again), and
    // the deadline cleared, before this worker publishes anything of its own.
    atomic_store(&c->deadline_ns, uint64_t{0});
    worker->held.publish(-1, ClaimState::detached, -1);
    LWLockAcquire(c->lock, LW_EXCLUSIVE);
    c->worker_latch = MyLatch;
    for (int i = 0; i < c->claim_count; i++) {
        if (c->claims[i].destroying) {  // its predecessor died destroying it: done again
            c->claims[i].destroying = false;
            c->claims[i].requests |= kDestroy;
        }
        if (ClaimWord{atomic_load(&c->claims[i].word)}.state() != ClaimState::destroyed)
            worker->held.publish(i, c->claims[i].wanted ? ClaimState::pending : ClaimState::detached, -1);
    }
    LWLockRelease(c->lock);
    while (!ShutdownRequestPending) {
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
        }
        worker->round();
        answer_backends(c);  // what changed without an answer of its own (a deadline, a word)
        const int64_t now = monotonic_ns();
        const int64_t renew = worker->r.lease.renew_at_ns();
        long wait_ms = 100;
        if (renew > now && (renew - now) / 1000000 < wait_ms)
            wait_ms = static_cast<long>((renew - now) / 1000000) + 1;
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, wait_ms, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
    }
    worker->shutdown();
    LWLockAcquire(c->lock, LW_EXCLUSIVE);
    c->worker_latch = nullptr;
    LWLockRelease(c->lock);
    proc_exit(1);  // not 0, which would unregister it: terminated alone, it starts again after 1 s
}

namespace idgen::pg {

void register_cluster_worker() {
    check_registry_password_at_start();
    BackgroundWorker w;
    memset(&w, 0, sizeof w);
    w.bgw_flags = BGWORKER_SHMEM_ACCESS;
    w.bgw_start_time = BgWorkerStart_RecoveryFinished;  // a standby holds no node ids
    w.bgw_restart_time = 1;
    strlcpy(w.bgw_library_name, "idgen", sizeof w.bgw_library_name);
    strlcpy(w.bgw_function_name, "idgen_cluster_worker_main", sizeof w.bgw_function_name);
    strlcpy(w.bgw_name, "idgen registry worker", sizeof w.bgw_name);
    strlcpy(w.bgw_type, "idgen registry worker", sizeof w.bgw_type);
    RegisterBackgroundWorker(&w);
}

}  // namespace idgen::pg
