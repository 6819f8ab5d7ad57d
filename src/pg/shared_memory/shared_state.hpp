// Folder src/pg/shared_memory: the generators' slice of shared memory.
//
// The slice of shared memory (needs shared_preload_libraries) that every time-ordered generator
// draws from: the durable horizon, the live generators' clocks and one slot per Snowflake
// sequencer in use. This folder owns it: its size, its start and what protects each field. The
// other slices (retrospective ids: src/pg/leases/backfill_shared.hpp; cluster mode:
// src/pg/cluster/cluster_shared.hpp) are their folders' own; module.cpp lists them all.
//
// Locking notes (after pg_stat_statements). Every field below says what protects it.
// - Drawing an id takes no lock: a generator's LogicalClock is advanced with one atomic add
//   (a compare-and-swap only when the wall clock has moved past it), the published horizon
//   and the lead floor are read with atomic loads, and the statistics are plain stores into
//   cells that only one backend writes. With idgen.ordering = 'session' (the default) a
//   backend takes a run of up to 64 positions with that one add and hands them out from its
//   own memory (src/core/clocks/session_run.hpp), so under load each clock's cache line moves between
//   cores once per run, not once per id: measured on 16 cores, one shared word per generator
//   stopped scaling at 2-3x. Every word written by drawers (each clock, a slot's
//   statistics) has a cache line of its own, so that drawers of different generators or
//   sequencers do not contend either. clock_raises tells runs taken before a raise apart.
// - horizon_lock: moving the horizon (about once per second of id time) and adopting state at
//   the end of archive recovery. Held across the horizon file's fsync and the WAL flush of
//   its record; released before the wait for synchronous standbys.
// - lease_lock, pool_lock: the retrospective ids' slice (src/pg/leases/backfill_shared.hpp).
// - slot_lock: allocating, looking up and releasing sequencer slots, and raising where they
//   start. Never held across I/O.
// Redo (the startup process) takes the same locks as the backends it stands in for. Lock
// order: slot_lock and lease_lock may be taken while horizon_lock is held (raising the
// generators; skipping leases at the end of archive recovery), never the other way round;
// slot_lock and lease_lock are never held together, pool_lock never with another.
#pragma once

#include <cstdint>

#include "core/clocks/horizon.hpp"
#include "core/clocks/logical_clock.hpp"
#include "core/generators/locality_clock.hpp"
#include "core/layouts/snowflake.hpp"
#include "core/sequencers/sequencer_slots.hpp"

#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include "access/xlogdefs.h"
#include "storage/lwlock.h"
}

namespace idgen::pg {

// The sequencer slots and the ring of dropped keys, under slot_lock: src/core/sequencers/sequencer_slots.hpp
// (a key's database and table are Oids there, 0 where there is no sequencer).
using snowflake::SequencerKey;
using snowflake::SequencerSlot;
static_assert(sizeof(Oid) == sizeof(SequencerKey::database) && InvalidOid == 0,
              "a sequencer key's database is an Oid, InvalidOid where there is no sequencer");

// How many ids one backend drew from one slot. Only that backend writes the cell (atomic stores,
// no locked instruction); the view sums a slot's cells with atomic loads. A cell counts for one slot
// generation and starts again from zero when the slot is given to another sequencer.
struct IssuedCount {
    uint64_t generation;
    uint64_t count;
};

// The generators there is one of per server, each a logical clock started above the horizon.
struct LiveGenerators {
    // Never change after startup:
    uint64_t uuid_node;        // idgen.uuid_node, resolved at start
    int32_t uuid_clock_seq;    // random at first start, kept in idgen.identity
    bool uuid_node_missing;    // idgen.uuid_node = 'mac', but no interface has an address
    bool identity_unreadable;  // idgen.identity exists but cannot be trusted
    uint64_t locality_mac;     // idgen.locality_mac, resolved at start (zeros if none)
    // Atomic, each on a cache line of its own:
    alignas(kCacheLine) LogicalClock uuid_v1;  // 100 ns ticks since 1582-10-15
    locality::State locality;  // time field and counter sequence (each word on a line of its own)
    alignas(kCacheLine) LogicalClock unique_ts;  // units of 10^idgen.unique_timestamp_digits ns since 1970
    alignas(kCacheLine) LogicalClock uuid_v7;    // 1/65,536 ms since 1970 (uuid_v7_clock.hpp)
};

// The generators, for the statistics of the idgen_state view.
enum class Generator : int {
    snowflake_next,
    uuid_v1,
    locality_uuid,
    unique_timestamp,
    uuid_v7,
    uuid_v1_at,
    snowflake_at,
    uuid_v7_at,
    count
};

// Counted with atomic adds, on slow paths only (a wait, an error), never per id.
struct GeneratorStats {
    uint64_t waits;         // calls that had to wait for the wall clock
    uint64_t clock_errors;  // calls that gave up waiting (55000)
};

// What this server took over at the end of its last archive recovery (promotion, restore of a
// backup) or from a moved database, for the idgen_state view.
enum class AdoptedFrom : int { nothing = 0, archive_recovery = 1, moved_database = 2 };

struct SharedState {
    // Never change after startup.
    LWLock *horizon_lock;
    LWLock *slot_lock;
    int slot_count;
    int backend_count;        // rows of the IssuedCount table that follows the slots
    bool horizon_unreadable;  // the horizon file exists but cannot be trusted

    // The horizon. `horizon.durable_unix_us` is the published horizon, read with atomic loads
    // and raised (atomic_raise) only after the horizon it names is in the file, in flushed WAL
    // and confirmed by synchronous standbys: ids may be handed out up to it. Under horizon_lock:
    Horizon horizon;
    int64 horizon_written_us;        // in the file and in flushed WAL (>= the published horizon)
    XLogRecPtr horizon_written_lsn;  // the end of the record of horizon_written_us (0 if none)
    // The server started in archive recovery (standby.signal or recovery.signal): at its end,
    // the failover margin is to be adopted, once (see adopt_after_archive_recovery). Set at
    // startup; cleared under horizon_lock; read without it as a hint.
    bool archive_recovery_pending;
    AdoptedFrom adopted_from;
    int64 adopted_horizon_us;  // the floor taken over (0: none)
    int64 adopted_at_us;       // when, on this server's clock
    // Where new sequencer slots start: above every id before the last server start, recovery
    // or adoption. Under slot_lock.
    int64 start_floor_us;
    // Ids may run idgen.max_lead ahead of the later of the wall clock and this (atomic): set when
    // state is adopted from another server, whose ids may be ahead of this server's clock.
    uint64_t lead_floor_us;
    // Atomic: incremented after every raise_generators, which may move clocks above positions
    // that backends hold in runs; a run taken before a backend read the new value is emptied
    // (drop_if_raised, session_run.hpp). Read by every draw in 'session' order; written rarely.
    uint64_t clock_raises;
    // Atomic: the latest wall-clock millisecond (Unix) a draw in 'session' order has seen, raised
    // (atomic_raise) by the first draw of each millisecond. A backend whose clock reads earlier
    // (the clock stepped back) drops its run instead of using it (ordered_run, generate.hpp).
    alignas(kCacheLine) uint64_t latest_wall_ms;
    // Atomic: incremented after a subscription guard row of any database is written
    // (subscription_guard.hpp); a backend looks at its database's guards again when it moves.
    alignas(kCacheLine) uint64_t guard_generation;

    LiveGenerators live;  // clocks: atomic; identities: never change after startup
    GeneratorStats stats[static_cast<int>(Generator::count)];  // atomic adds

    // Under slot_lock:
    // The bound of every id of the slots released since the server started (dropped sequencers):
    // a new slot starts above it.
    int64 released_bound_us;
    // The last sequencers dropped (a REPEATABLE READ transaction may still see their
    // definitions; see DroppedKeys for what an older drop being forgotten costs).
    snowflake::DroppedKeys dropped;
    // Definitions gone with their ids in no table (aborted creations, dropped databases and
    // definitions tables): what a definition of their name made later must start above
    // (sequencer_slots.hpp).
    snowflake::GoneDefinitions gone;
    SequencerSlot slots[FLEXIBLE_ARRAY_MEMBER];  // key, layout: slot_lock; clock: atomic
};

// Counts one id drawn by this backend from slot `slot` in its generation `generation`.
void count_issued(SharedState *state, const SequencerSlot *slot, uint64_t generation);

// The ids drawn from a slot in its current generation, by all backends.
uint64_t issued_total(SharedState *state, const SequencerSlot *slot);

Size shared_state_size();

// Finds or makes the slice (from the shared-memory startup hook, under AddinShmemInitLock); the
// first time since the postmaster started, or after a crash, the horizon is read from its file
// and every generator starts above it.
void start_shared_state(LWLock *horizon_lock, LWLock *slot_lock);

// The shared state for a generator named `what`, a pure gate: an error when idgen was not
// preloaded (55000), during recovery (25006, as nextval() on a hot standby), or when the horizon
// file is unreadable (XX001). What a generator must take over first (the end of an archive
// recovery, a moved database's carried state) is the caller's step: ready_to_generate,
// src/pg/functions/generate.hpp.
SharedState *require_shared_state(const char *what);

// The shared state, or nullptr when idgen was not preloaded.
SharedState *shared_state_or_null();

// Makes sure the durable horizon covers an id whose time ends at end_unix_us, moving it first
// (file, WAL, synchronous standbys) if it does not. Generators do not call it: they cover an id
// through cover_ids (src/pg/cover/cover.hpp), which adds the copies outside the data directory.
void ensure_horizon(SharedState *state, int64_t end_unix_us, int64_t now_unix_us, const char *what);

// Redo of a horizon record: the horizon (file and memory) and every generator's start are
// raised to at least horizon_unix_us.
void apply_horizon(SharedState *state, int64_t horizon_unix_us);

// Writes horizon_unix_us to the file and publishes it, when it is above the written one and the
// file is readable. Under horizon_lock; no WAL (redo, and the adoption at the end of archive
// recovery, which a crash would repeat).
void write_horizon_locked(SharedState *state, int64_t horizon_unix_us);

// Takes over the horizon of a database that moved here from another cluster: the horizon moves
// above it (file, WAL, synchronous standbys), every generator resumes above it and may run
// idgen.max_lead ahead of it.
void adopt_moved_horizon(SharedState *state, int64_t horizon_unix_us);

// Raises every generator's start (live clocks, sequencer slots, new slots) above
// floor_unix_us; with `lead`, ids may also run idgen.max_lead ahead of it. Call under
// horizon_lock (it takes slot_lock).
void raise_generators(SharedState *state, int64_t floor_unix_us, bool lead);

// A Unix time at or after the end of every id any time-ordered generator of this server has
// handed out or may still hand out from positions already taken (live clocks, sequencer slots,
// released slots). Takes slot_lock.
int64_t issued_bound_unix_us(SharedState *state);

// The wall clock as the generators use it: now, or the lead floor if that is later.
int64_t generator_now_unix_ns(const SharedState *state);

// Counts a wait or an error of a generator (slow paths only).
void count_wait(SharedState *state, Generator g);
void count_clock_error(SharedState *state, Generator g);

}  // namespace idgen::pg
