// Folder src/pg/views: the functions behind idgen's views.
//
// _idgen_state(), behind the view idgen_state: one row per generator with what a DBA debugging
// a failover reads first - this server's role, the durable horizon and the WAL position that
// made it durable, how far the generator runs ahead of the wall clock, waits and errors, and
// the state adopted at the last promotion or from a moved database.
#include "core/generators/locality_clock.hpp"
#include "core/generators/uuid_v1_clock.hpp"
#include "core/generators/uuid_v7_clock.hpp"
#include "core/layouts/snowflake.hpp"
#include "core/layouts/unique_timestamp.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/boundary/wall_clock.hpp"
#include "pg/leases/backfill_leases.hpp"
#include "pg/moves/carried_state.hpp"
#include "pg/shared_memory/shared_state.hpp"

extern "C" {
#include "access/xlog.h"
#include "funcapi.h"
#include "utils/pg_lsn.h"
}

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_state);
}

static const char *const kNames[] = {"snowflake_next", "uuid_v1",    "locality_uuid", "unique_timestamp",
                                     "uuid_v7",        "uuid_v1_at", "snowflake_at",  "uuid_v7_at"};
static_assert(sizeof kNames / sizeof kNames[0] == static_cast<int>(Generator::count),
              "one name per generator");

static const char *adopted_name(AdoptedFrom a) {
    switch (a) {
        case AdoptedFrom::archive_recovery:
            return "archive recovery";
        case AdoptedFrom::moved_database:
            return "moved database";
        case AdoptedFrom::nothing:
            break;
    }
    return nullptr;
}

// Where the generator's clock will issue next (Unix microseconds); 0 for the retrospective
// generators, which have no clock. Snowflake: the furthest of the sequencers in use.
static int64_t next_unix_us(SharedState *s, Generator g) {
    switch (g) {
        case Generator::uuid_v1:
            return uuid_v1::unix_us_of(atomic_load(&s->live.uuid_v1.next_free));
        case Generator::locality_uuid:
            return locality::unix_us_of(atomic_load(&s->live.locality.clock.next_free));
        case Generator::uuid_v7:
            return uuid_v7::unix_us_of(atomic_load(&s->live.uuid_v7.next_free));
        case Generator::unique_timestamp:
            return unique_ts::unix_us_of(unique_ts::Layout{unique_timestamp_digits},
                                         atomic_load(&s->live.unique_ts.next_free));
        case Generator::snowflake_next: {
            int64_t furthest = 0;
            LWLockAcquire(s->slot_lock, LW_SHARED);
            for (int i = 0; i < s->slot_count; i++) {
                const SequencerSlot &slot = s->slots[i];
                if (slot.key.none()) continue;
                const int64_t t = snowflake::unix_us_of(slot.layout, atomic_load(&slot.clock.next_free));
                if (t > furthest) furthest = t;
            }
            LWLockRelease(s->slot_lock);
            return furthest;
        }
        default:
            return 0;
    }
}

// Namespaces leased so far over every id space of a retrospective generator's kinds.
static int64 namespaces_leased(Generator g) {
    int64 total = 0;
    const LeaseTable table = lease_table(backfill_shared());
    for (const LeaseTable::Cell &c : table.cells) {
        const bool mine = g == Generator::snowflake_at ? c.space.kind == LeaseKind::snowflake
                          : g == Generator::uuid_v7_at ? c.space.kind == LeaseKind::uuid_v7
                                                       : (c.space.kind == LeaseKind::uuid_auto ||
                                                          c.space.kind == LeaseKind::uuid_given);
        if (mine) total += static_cast<int64>(c.state.next);
    }
    return total;
}

// () -> setof (generator, role, durable_horizon, horizon_lsn, next_id_time, lead, waits,
// clock_errors, namespaces_leased, adopted_from, adopted_horizon, adopted_at, failover_margin)
Datum idgen_state(PG_FUNCTION_ARGS) {
    ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
    InitMaterializedSRF(fcinfo, 0);
    SharedState *s = shared_state_or_null();
    if (s == nullptr) PG_RETURN_VOID();
    // Reading the view in a database moved here by pg_upgrade adopts its carried state, so an
    // administrator can have every database's state taken over before clients connect.
    if (!RecoveryInProgress()) adopt_carried_state_once(s);

    LWLockAcquire(s->horizon_lock, LW_SHARED);
    const XLogRecPtr lsn = s->horizon_written_lsn;
    const AdoptedFrom adopted = s->adopted_from;
    const int64_t adopted_horizon = s->adopted_horizon_us;
    const int64_t adopted_at = s->adopted_at_us;
    LWLockRelease(s->horizon_lock);
    const int64_t horizon = static_cast<int64_t>(atomic_load(&s->horizon.durable_unix_us));
    const int64_t now = now_unix_us();
    const bool standby = RecoveryInProgress();

    for (int i = 0; i < static_cast<int>(Generator::count); i++) {
        const Generator g = static_cast<Generator>(i);
        const bool retrospective =
            g == Generator::uuid_v1_at || g == Generator::snowflake_at || g == Generator::uuid_v7_at;
        Datum values[13];
        bool nulls[13] = {};
        values[0] = CStringGetTextDatum(kNames[i]);
        values[1] = CStringGetTextDatum(standby ? "standby" : "primary");
        values[2] = TimestampTzGetDatum(timestamptz_from_unix_micros(horizon));
        nulls[2] = retrospective || horizon == 0;
        values[3] = LSNGetDatum(lsn);
        nulls[3] = retrospective || lsn == InvalidXLogRecPtr;
        const int64_t next = next_unix_us(s, g);
        values[4] = TimestampTzGetDatum(timestamptz_from_unix_micros(next));
        nulls[4] = next == 0;
        Interval *lead = static_cast<Interval *>(palloc0(sizeof(Interval)));
        lead->time = next - now;
        values[5] = IntervalPGetDatum(lead);
        nulls[5] = next == 0;
        values[6] = Int64GetDatum(static_cast<int64>(atomic_load(&s->stats[i].waits)));
        values[7] = Int64GetDatum(static_cast<int64>(atomic_load(&s->stats[i].clock_errors)));
        values[8] = Int64GetDatum(namespaces_leased(g));
        nulls[8] = !retrospective;
        const char *from = adopted_name(adopted);
        values[9] = from ? CStringGetTextDatum(from) : Datum{0};
        nulls[9] = from == nullptr;
        values[10] = TimestampTzGetDatum(timestamptz_from_unix_micros(adopted_horizon));
        nulls[10] = from == nullptr;
        values[11] = TimestampTzGetDatum(timestamptz_from_unix_micros(adopted_at));
        nulls[11] = from == nullptr;
        Interval *margin = static_cast<Interval *>(palloc0(sizeof(Interval)));
        margin->time = int64_t{failover_margin_ms} * 1000;
        values[12] = IntervalPGetDatum(margin);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    PG_RETURN_VOID();
}
