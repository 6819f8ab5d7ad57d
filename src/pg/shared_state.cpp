// Shared memory for idgen: requested in shmem_request_hook, initialised in
// shmem_startup_hook (also after a crash restart, which reloads the horizon from disk).
#include "shared_state.hpp"

#include <cstring>

#include "../core/locality_clock.hpp"
#include "../core/unique_timestamp.hpp"
#include "../core/uuid_v1_clock.hpp"
#include "durable_record.hpp"
#include "host_identity.hpp"
#include "settings.hpp"

extern "C" {
#include "access/twophase.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
}

namespace idgen::pg {

static const char kTrancheName[] = "idgen";
static const char kHorizonFile[] = "idgen.horizon";
static const uint32_t kHorizonMagic = 0x1D6E4853;  // "idgen horizon", format 2
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

// Resolves the live generators' identities from the settings and starts their clocks above
// the horizon, so that nothing they issue can meet what they issued before a restart.
static void start_live_generators(LiveGenerators *live, int64_t horizon_unix_us) {
    UuidIdentity identity{};
    live->identity_unreadable = !load_uuid_identity(&identity);
    live->uuid_clock_seq = identity.clock_seq;
    if (strcmp(uuid_node, "random") == 0)
        live->uuid_node = identity.random_node;
    else if (strcmp(uuid_node, "mac") == 0)
        live->uuid_node_missing = !first_mac_address(&live->uuid_node);
    else
        parse_mac(uuid_node, &live->uuid_node);  // validated by the setting's check hook

    const bool explicit_mac = locality_mac[0] != '\0' && parse_mac(locality_mac, &live->locality_mac);
    if (!explicit_mac && !first_mac_address(&live->locality_mac)) live->locality_mac = 0;

    raise_to(&live->uuid_v1, uuid_v1::position_after(horizon_unix_us));
    raise_to(&live->locality.clock, locality::position_after(horizon_unix_us));
    raise_to(&live->unique_ts,
             unique_ts::position_after(unique_ts::Layout{unique_timestamp_digits}, horizon_unix_us));
}

static void start_shared_state() {
    if (prev_shmem_startup_hook) prev_shmem_startup_hook();

    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found = false;
    state = static_cast<SharedState *>(ShmemInitStruct("idgen", shared_state_size(), &found));
    if (!found) {
        memset(static_cast<void *>(state), 0, shared_state_size());  // plain data (trivially copyable)
        state->lock = &(GetNamedLWLockTranche(kTrancheName))->lock;
        state->slot_count = max_sequencers;
        state->backend_count = backend_rows();
        int64_t horizon = 0;
        switch (read_record(kHorizonFile, kHorizonMagic, &horizon, sizeof horizon)) {
            case RecordRead::ok:
                state->horizon.durable_unix_us = horizon > 0 ? static_cast<uint64_t>(horizon) : 0;
                break;
            case RecordRead::missing:
                break;
            case RecordRead::unreadable:
                state->horizon_unreadable = true;
                ereport(WARNING, (errmsg("idgen horizon file \"idgen.horizon\" is unreadable; "
                                         "time-ordered generators are disabled")));
                break;
        }
        state->startup_horizon_us = static_cast<int64_t>(state->horizon.durable_unix_us);
        state->leases_unreadable = !load_leases(&state->leases);
        if (state->leases_unreadable)
            ereport(WARNING, (errmsg("idgen lease file \"idgen.leases\" is unreadable; "
                                     "retrospective ids are disabled")));
        start_live_generators(&state->live, state->startup_horizon_us);
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
        write_record(kHorizonFile, kHorizonMagic, &target, sizeof target);
        atomic_store(&s->horizon.durable_unix_us, static_cast<uint64_t>(target));
    }
    LWLockRelease(s->lock);
}

}  // namespace idgen::pg
