// The generators' slice of shared memory (shared_state.hpp): its size and start (also after a
// crash restart, which reloads the horizon from disk), the pure gate, and the horizon's protocol.
#include "pg/shared_memory/shared_state.hpp"

#include <algorithm>
#include <cstring>
#include <unistd.h>

#include "core/backfill/uuid_v1_backfill.hpp"
#include "core/base/mac_address.hpp"
#include "core/generators/locality_clock.hpp"
#include "core/generators/uuid_v1_clock.hpp"
#include "core/generators/uuid_v7_clock.hpp"
#include "core/layouts/unique_timestamp.hpp"

#include "pg/boundary/settings.hpp"
#include "pg/boundary/wall_clock.hpp"
#include "pg/durability/durable_record.hpp"
#include "pg/durability/host_identity.hpp"
#include "pg/durability/standby_wait.hpp"
#include "pg/wal/state_wal.hpp"

extern "C" {
#include "access/twophase.h"
#include "access/xlog.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
}

namespace idgen::pg {

static const char kHorizonFile[] = "idgen.horizon";
static const uint32_t kHorizonMagic = 0x1D6E4853;  // "idgen horizon", format 2
static SharedState *state = nullptr;

// Every process that can run SQL has a PGPROC and so a row of counts (my_proc_number()).
static int backend_rows() {
    return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

static Size slots_end() {
    return add_size(offsetof(SharedState, slots),
                    mul_size(sizeof(SequencerSlot), static_cast<Size>(max_sequencers)));
}

Size shared_state_size() {
    return add_size(slots_end(), mul_size(sizeof(IssuedCount), mul_size(static_cast<Size>(backend_rows()),
                                                                        static_cast<Size>(max_sequencers))));
}

static IssuedCount *issued_row(SharedState *s, int backend) {
    IssuedCount *table = reinterpret_cast<IssuedCount *>(reinterpret_cast<char *>(s) + slots_end());
    return table + static_cast<Size>(backend) * s->slot_count;
}

void count_issued(SharedState *s, const SequencerSlot *slot, uint64_t generation) {
    IssuedCount &cell = issued_row(s, my_proc_number())[slot - s->slots];
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

// Resolves the live generators' identities from the settings.
static void resolve_live_identities(LiveGenerators *live) {
    UuidIdentity identity{};
    live->identity_unreadable = !load_uuid_identity(&identity);
    live->uuid_clock_seq = identity.clock_seq;
    if (strcmp(uuid_node, "random") == 0)
        live->uuid_node = uuid_v1::backfill::live_random_node(identity.random_node);
    else if (strcmp(uuid_node, "mac") == 0)
        live->uuid_node_missing = !first_mac_address(&live->uuid_node);
    else
        parse_mac(uuid_node, &live->uuid_node);  // validated by the setting's check hook

    const bool explicit_mac = locality_mac[0] != '\0' && parse_mac(locality_mac, &live->locality_mac);
    if (!explicit_mac && !first_mac_address(&live->locality_mac)) live->locality_mac = 0;
}

void start_shared_state(LWLock *horizon_lock, LWLock *slot_lock) {
    bool found = false;
    state = static_cast<SharedState *>(ShmemInitStruct("idgen", shared_state_size(), &found));
    if (found) return;
    memset(static_cast<void *>(state), 0, shared_state_size());  // plain data (trivially copyable)
    state->horizon_lock = horizon_lock;
    state->slot_lock = slot_lock;
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
    state->horizon_written_us = static_cast<int64_t>(state->horizon.durable_unix_us);
    resolve_live_identities(&state->live);
    // The postmaster runs in the data directory.
    state->archive_recovery_pending =
        access("standby.signal", F_OK) == 0 || access("recovery.signal", F_OK) == 0;
    // Every generator starts above the stored horizon, so that nothing it issues can meet
    // what was issued before a restart. Redo (crash recovery, a standby) raises it further.
    raise_generators(state, state->horizon_written_us, false);
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
    // A standby's generators would hand out ids from its primary's id space: they refuse, as
    // nextval() does (25006). Once recovery has ended this is a backend-local flag test.
    if (RecoveryInProgress())
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("cannot execute %s during recovery", what),
                        errdetail("This server is a standby (or is recovering): its ids belong to the "
                                  "primary. Decoders work here; generate on the primary."),
                        errhint("After promotion, idgen resumes above everything the old primary "
                                "issued that reached this server (see the idgen_state view).")));
    if (state->horizon_unreadable)
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("idgen horizon file \"idgen.horizon\" in the data directory is unreadable"),
                        errdetail("Without it idgen cannot know which ids were handed out before the "
                                  "last shutdown."),
                        errhint("Once the wall clock is certainly past every id already issued, remove "
                                "the file and restart the server.")));
    return state;
}

// The horizon's write protocol. Under horizon_lock: the file (fsync, durable rename), then the
// WAL record (inserted and flushed) - the order state_wal.hpp argues. Then, without the lock,
// the wait for synchronous standbys, and only then the published horizon is raised: no backend
// hands out an id under a horizon that a synchronous standby has not confirmed. Backends that
// need the horizon while a move is being confirmed find it written and wait for the same
// record instead of writing another one.
void ensure_horizon(SharedState *s, int64_t end_unix_us, int64_t now_unix_us, const char *what) {
    if (horizon_covers(&s->horizon, end_unix_us)) return;
    LWLockAcquire(s->horizon_lock, LW_EXCLUSIVE);
    if (s->horizon_written_us < end_unix_us) {
        const int64_t target = horizon_target(end_unix_us, now_unix_us);
        write_record(kHorizonFile, kHorizonMagic, &target, sizeof target);
        s->horizon_written_lsn = log_horizon(target);
        s->horizon_written_us = target;
    }
    const int64_t written = s->horizon_written_us;
    const XLogRecPtr lsn = s->horizon_written_lsn;
    LWLockRelease(s->horizon_lock);
    // Published only once every session may trust it (standby_wait.hpp); otherwise the next
    // session that needs it waits for the same record itself and publishes it.
    if (lsn == InvalidXLogRecPtr || wait_for_sync_standbys(lsn, what))
        atomic_raise(&s->horizon.durable_unix_us, static_cast<uint64_t>(written));
}

void write_horizon_locked(SharedState *s, int64_t horizon_unix_us) {
    // Over an unreadable file nothing is written: the generators refuse (XX001) until an
    // administrator acts, and a file written now would read as complete after a restart.
    if (s->horizon_unreadable || horizon_unix_us <= s->horizon_written_us) return;
    write_record(kHorizonFile, kHorizonMagic, &horizon_unix_us, sizeof horizon_unix_us);
    s->horizon_written_us = horizon_unix_us;
    atomic_raise(&s->horizon.durable_unix_us, static_cast<uint64_t>(horizon_unix_us));
}

void apply_horizon(SharedState *s, int64_t horizon_unix_us) {
    LWLockAcquire(s->horizon_lock, LW_EXCLUSIVE);
    write_horizon_locked(s, horizon_unix_us);
    raise_generators(s, horizon_unix_us, false);
    LWLockRelease(s->horizon_lock);
}

void adopt_moved_horizon(SharedState *s, int64_t horizon_unix_us) {
    if (horizon_unix_us <= 0) return;
    const int64_t now = now_unix_us(), max_ahead_us = int64_t{max_adopted_lead_s} * 1000000;
    if (!adoptable_horizon(horizon_unix_us, now, max_ahead_us)) {
        const long long ahead_s = (horizon_unix_us - now) / 1000000, needed_s = ahead_s + 1;
        ereport(
            ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("idgen will not adopt a moved database's horizon %lld s ahead of this server's clock",
                    ahead_s),
             errdetail(
                 "The state it brought (a restore, a publisher's state) says its ids may reach that far: the "
                 "server that wrote it had its clock ahead, or this server's clock is behind. Adopting it "
                 "would put every id of this server that far ahead; idgen.max_adopted_lead is %d s.",
                 max_adopted_lead_s),
             needed_s > INT_MAX
                 ? errhint("No setting reaches that far: the state is damaged. Take it from a sound copy.")
                 : errhint(
                       "Correct the clock that is wrong. If this server's is right and ids that far ahead "
                       "are acceptable: SET idgen.max_adopted_lead = %lld; and repeat (pg_restore: "
                       "PGOPTIONS='-c idgen.max_adopted_lead=%lld').",
                       needed_s, needed_s)));
    }
    ensure_horizon(s, horizon_unix_us, now, "idgen");
    LWLockAcquire(s->horizon_lock, LW_EXCLUSIVE);
    raise_generators(s, horizon_unix_us, true);
    if (horizon_unix_us > s->adopted_horizon_us) {
        s->adopted_from = AdoptedFrom::moved_database;
        s->adopted_horizon_us = horizon_unix_us;
        s->adopted_at_us = now_unix_us();
    }
    LWLockRelease(s->horizon_lock);
}

void raise_generators(SharedState *s, int64_t floor_unix_us, bool lead) {
    if (lead) atomic_raise(&s->lead_floor_us, static_cast<uint64_t>(floor_unix_us));
    LiveGenerators *live = &s->live;
    raise_to(&live->uuid_v1, uuid_v1::position_after(floor_unix_us));
    raise_to(&live->locality.clock, locality::position_after(floor_unix_us));
    raise_to(&live->unique_ts,
             unique_ts::position_after(unique_ts::Layout{unique_timestamp_digits}, floor_unix_us));
    raise_to(&live->uuid_v7, uuid_v7::position_after(floor_unix_us));
    // New slots start above start_floor_us, and the slots in use are raised (a running server
    // adopting a moved database's state), both under slot_lock, so that no slot is bound in
    // between with the old floor.
    LWLockAcquire(s->slot_lock, LW_EXCLUSIVE);
    if (floor_unix_us > s->start_floor_us) s->start_floor_us = floor_unix_us;
    snowflake::raise_slots(s->slots, s->slot_count, floor_unix_us);
    LWLockRelease(s->slot_lock);
    // After every clock is raised: a backend that reads the new count empties the runs it took
    // before, so that a call that starts after this returns hands out no position below the
    // floor (session_run.hpp, drop_if_raised).
    atomic_fetch_add(&s->clock_raises, 1);
}

int64_t issued_bound_unix_us(SharedState *s) {
    const LiveGenerators *live = &s->live;
    // Each live clock's next free position starts at or after the end of every position taken,
    // and positions are taken before ids are handed out; a unit is at most a millisecond.
    int64_t bound = std::max({uuid_v1::unix_us_of(atomic_load(&live->uuid_v1.next_free)),
                              locality::unix_us_of(atomic_load(&live->locality.clock.next_free)),
                              unique_ts::unix_us_of(unique_ts::Layout{unique_timestamp_digits},
                                                    atomic_load(&live->unique_ts.next_free)),
                              uuid_v7::unix_us_of(atomic_load(&live->uuid_v7.next_free))}) +
                    1000;
    LWLockAcquire(s->slot_lock, LW_SHARED);
    bound = std::max({bound, s->start_floor_us, s->released_bound_us});
    for (int i = 0; i < s->slot_count; i++)
        if (!s->slots[i].key.none())
            bound = std::max(bound, snowflake::issued_bound_unix_us(s->slots[i].layout, s->slots[i].clock));
    LWLockRelease(s->slot_lock);
    return bound;
}

int64_t generator_now_unix_ns(const SharedState *s) {
    const int64_t now = now_unix_ns();
    const int64_t lead_floor_ns = static_cast<int64_t>(atomic_load(&s->lead_floor_us)) * 1000;
    return now > lead_floor_ns ? now : lead_floor_ns;
}

void count_wait(SharedState *s, Generator g) {
    atomic_fetch_add(&s->stats[static_cast<int>(g)].waits, 1);
}

void count_clock_error(SharedState *s, Generator g) {
    atomic_fetch_add(&s->stats[static_cast<int>(g)].clock_errors, 1);
}

}  // namespace idgen::pg
