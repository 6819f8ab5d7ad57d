// The module's entry points and the one place that lists idgen's parts: the magic block
// PostgreSQL checks when it loads idgen.so, and _PG_init, which defines the settings and, when
// idgen is preloaded, requests and starts each subsystem's slice of shared memory (as
// PostgreSQL's CreateSharedMemoryAndSemaphores lists its own), registers the WAL resource manager
// with what each subsystem does on redo and the carried rows with the cover, and installs the
// hooks and the cluster-mode worker.
#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/cluster/citus_group.hpp"
#include "pg/cluster/cluster_shared.hpp"
#include "pg/cover/cover.hpp"
#include "pg/leases/backfill_leases.hpp"
#include "pg/masking/mask_keys.hpp"
#include "pg/moves/adoption.hpp"
#include "pg/moves/carried_state.hpp"
#include "pg/moves/subscription_statements.hpp"
#include "pg/sequencers/sequencer_cache.hpp"
#include "pg/sequencers/sequencer_registry.hpp"
#include "pg/shared_memory/shared_state.hpp"
#include "pg/wal/state_wal.hpp"

extern "C" {
#include "storage/ipc.h"
#include "storage/shmem.h"
}

namespace idgen::pg {

// idgen's LWLocks, one tranche (the wait event "idgen"), handed to the slices that own them.
static const char kTrancheName[] = "idgen";
enum Lock { horizon_lock, lease_lock, slot_lock, pool_lock, cluster_lock, lock_count };

static shmem_request_hook_type prev_shmem_request_hook = nullptr;
static shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

static void request_shared_memory() {
    if (prev_shmem_request_hook) prev_shmem_request_hook();
    RequestAddinShmemSpace(shared_state_size());
    RequestAddinShmemSpace(backfill_shared_size());
    if (registry_configured()) RequestAddinShmemSpace(cluster_shared_size());
    RequestNamedLWLockTranche(kTrancheName, lock_count);
}

// Also after a crash restart, when shared memory is made afresh: each slice reloads its files.
static void start_shared_memory() {
    if (prev_shmem_startup_hook) prev_shmem_startup_hook();
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    LWLockPadded *locks = GetNamedLWLockTranche(kTrancheName);
    start_shared_state(&locks[horizon_lock].lock, &locks[slot_lock].lock);
    start_backfill_shared(&locks[lease_lock].lock, &locks[pool_lock].lock);
    start_cluster_shared(&locks[cluster_lock].lock);
    LWLockRelease(AddinShmemInitLock);
}

// Redo hands each record to the slice that owns its state.
static void redo_horizon(int64_t horizon_unix_us) {
    apply_horizon(shared_state_or_null(), horizon_unix_us);
}

static void redo_lease(const backfill::LeaseSpace &space, const backfill::LeaseState &state) {
    apply_lease(backfill_shared(), space, state);
}

static void install_preloaded_parts() {
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = request_shared_memory;
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = start_shared_memory;
    register_state_rmgr(StateRedo{redo_horizon, redo_lease, adopt_after_archive_recovery});
    // The copy of the state each database carries: covered before any id leaves (cover.hpp).
    register_state_copy(StateCopy{ensure_carried_horizon, carry_lease});
    install_subscription_hook();
    if (registry_configured()) register_cluster_worker();
}

}  // namespace idgen::pg

extern "C" {
IDGEN_MODULE_MAGIC;

void _PG_init(void);

void _PG_init(void) {
    idgen::pg::define_settings(process_shared_preload_libraries_in_progress);
    idgen::pg::register_sequencer_callbacks();
    idgen::pg::register_sequencer_cache_callback();
    idgen::pg::register_citus_group_callback();
    idgen::pg::register_mask_key_callback();
    if (process_shared_preload_libraries_in_progress) idgen::pg::install_preloaded_parts();
}
}
