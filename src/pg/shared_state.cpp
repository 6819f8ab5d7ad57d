// Shared memory for idgen: requested in shmem_request_hook, initialised in
// shmem_startup_hook (also after a crash restart, which reloads the horizon from disk).
#include "shared_state.hpp"

#include "durable_horizon.hpp"
#include "settings.hpp"

extern "C" {
#include "access/twophase.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
}

namespace idgen::pg {

static const char kTrancheName[] = "idgen";
static shmem_request_hook_type prev_shmem_request_hook = nullptr;
static shmem_startup_hook_type prev_shmem_startup_hook = nullptr;
static SharedState *state = nullptr;

// Every process that can run SQL has a PGPROC and so a row of counts (PGPROC.pgprocno).
static int backend_rows() {
    return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

static Size slots_end() {
    return add_size(offsetof(SharedState, slots),
                    mul_size(sizeof(SequencerSlot), static_cast<Size>(max_sequencers)));
}

static Size shared_state_size() {
    return add_size(slots_end(), mul_size(sizeof(IssuedCount),
                                          mul_size(static_cast<Size>(backend_rows()),
                                                   static_cast<Size>(max_sequencers))));
}

static IssuedCount *issued_row(SharedState *s, int backend) {
    IssuedCount *table = reinterpret_cast<IssuedCount *>(reinterpret_cast<char *>(s) + slots_end());
    return table + static_cast<Size>(backend) * s->slot_count;
}

void count_issued(SharedState *s, const SequencerSlot *slot, uint64_t generation) {
    IssuedCount &cell = issued_row(s, MyProc->pgprocno)[slot - s->slots];
    if (cell.generation != generation) {
        atomic_store(&cell.count, 0);
        atomic_store(&cell.generation, generation);
    }
    atomic_store(&cell.count, cell.count + 1);
}

uint64_t issued_total(SharedState *s, const SequencerSlot *slot) {
    const uint64_t generation = atomic_load(&slot->generation);
    uint64_t total = 0;
    for (int b = 0; b < s->backend_count; b++) {
        const IssuedCount &cell = issued_row(s, b)[slot - s->slots];
        if (atomic_load(&cell.generation) == generation) total += atomic_load(&cell.count);
    }
    return total;
}

static void request_shared_state() {
    if (prev_shmem_request_hook) prev_shmem_request_hook();
    RequestAddinShmemSpace(shared_state_size());
    RequestNamedLWLockTranche(kTrancheName, 1);
}

static void start_shared_state() {
    if (prev_shmem_startup_hook) prev_shmem_startup_hook();

    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found = false;
    state = static_cast<SharedState *>(ShmemInitStruct("idgen", shared_state_size(), &found));
    if (!found) {
        memset(state, 0, shared_state_size());
        state->lock = &(GetNamedLWLockTranche(kTrancheName))->lock;
        state->slot_count = max_sequencers;
        state->backend_count = backend_rows();
        int64_t horizon = 0;
        switch (read_horizon_file(&horizon)) {
            case HorizonRead::ok:
                state->horizon.durable_unix_us = horizon > 0 ? static_cast<uint64_t>(horizon) : 0;
                break;
            case HorizonRead::missing:
                break;
            case HorizonRead::unreadable:
                state->horizon_unreadable = true;
                ereport(WARNING, (errmsg("idgen horizon file \"idgen.horizon\" is unreadable; "
                                         "time-ordered generators are disabled")));
                break;
        }
    }
    LWLockRelease(AddinShmemInitLock);
}

void install_shared_state_hooks() {
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = request_shared_state;
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = start_shared_state;
}

SharedState *shared_state_or_null() {
    return state;
}

SharedState *require_shared_state(const char *what) {
    if (state == nullptr)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s needs idgen in shared_preload_libraries", what),
                        errhint("Add idgen to shared_preload_libraries in postgresql.conf and "
                                "restart the server.")));
    if (state->horizon_unreadable)
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("idgen horizon file \"idgen.horizon\" in the data directory is unreadable"),
                        errdetail("Without it idgen cannot know which ids were handed out before the "
                                  "last shutdown."),
                        errhint("Once the wall clock is certainly past every id already issued, remove "
                                "the file and restart the server.")));
    return state;
}

void ensure_horizon(SharedState *s, int64_t end_unix_us, int64_t now_unix_us) {
    if (horizon_covers(&s->horizon, end_unix_us)) return;
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    if (!horizon_covers(&s->horizon, end_unix_us)) {
        const int64_t target = horizon_target(end_unix_us, now_unix_us);
        write_horizon_file(target);
        atomic_store(&s->horizon.durable_unix_us, static_cast<uint64_t>(target));
    }
    LWLockRelease(s->lock);
}

}  // namespace idgen::pg
