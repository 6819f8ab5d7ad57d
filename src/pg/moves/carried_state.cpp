// Reading and writing the rows of `reserved_state` in place, under the buffer's exclusive lock,
// with generic WAL; adopting rows of another cluster; the restore trigger and the initial save.
#include "pg/moves/carried_state.hpp"

#include "core/clocks/horizon.hpp"

#include "pg/boundary/extension_schema.hpp"
#include "pg/boundary/relcache_watch.hpp"
#include "pg/durability/standby_wait.hpp"
#include "pg/leases/backfill_leases.hpp"

extern "C" {
#include "access/genam.h"
#include "access/generic_xlog.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "storage/bufmgr.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace idgen::pg {

static const char kTable[] = "reserved_state";

// The rows' layout and the rules of what a row may become: carried_rows.hpp.
using Row = CarriedRow;
using records::kHorizonSlot;
constexpr int kRowColumns = 7;

// This backend's knowledge of its database's rows (one database per backend).
static int64_t carried_horizon_us = 0;  // the horizon row's value when last seen
static bool adoption_checked = false;
// The table did not exist when last looked up: the schema is older than 0.5.0 and this library
// serves it until ALTER EXTENSION idgen UPDATE, which saves the server's state into the new
// table. Until then a session looks the table up again once per kCarriedReserveUs of id time.
static bool table_missing = false;

// The table's oid as last looked up (InvalidOid: look it up again): a relcache invalidation of
// the table (DROP EXTENSION) or of everything clears it, and so does a table that is gone or
// is another by the time it is opened.
static Oid table_relid = InvalidOid;

static void on_relcache_invalidation(Oid relid) {
    if (relid == InvalidOid || relid == table_relid) table_relid = InvalidOid;
}

static Relation open_table() {
    static bool callback_registered = false;
    if (!callback_registered) {
        watch_relcache(on_relcache_invalidation);
        callback_registered = true;
    }
    if (OidIsValid(table_relid)) {
        Relation rel = try_table_open(table_relid, AccessShareLock);
        if (rel != nullptr && strcmp(RelationGetRelationName(rel), kTable) == 0) return rel;
        if (rel != nullptr) table_close(rel, AccessShareLock);
    }
    table_relid = get_relname_relid(kTable, extension_schema());
    table_missing = !OidIsValid(table_relid);
    return table_missing ? nullptr : table_open(table_relid, AccessShareLock);
}

static Row *row_of(Page page, OffsetNumber off) {
    ItemId lp = PageGetItemId(page, off);
    if (!ItemIdIsNormal(lp)) return nullptr;
    HeapTupleHeader t = reinterpret_cast<HeapTupleHeader>(PageGetItem(page, lp));
    if (HeapTupleHeaderGetNatts(t) != kRowColumns || (t->t_infomask & HEAP_HASNULL) ||
        ItemIdGetLength(lp) < t->t_hoff + sizeof(Row))
        return nullptr;
    return reinterpret_cast<Row *>(reinterpret_cast<char *>(t) + t->t_hoff);
}

// Calls edit(row) for every row of the table, page by page under the page's exclusive lock; a
// page where edit returned true for some row is written with generic WAL. Returns the latest
// page LSN seen, so the record that last changed any row (also another session's, whose wait
// for the synchronous standbys may not be over) is the one to make durable
// (InvalidXLogRecPtr: no table). Rows are not checked for visibility: a dead row only ever
// makes idgen more careful.
template <typename Edit>
static XLogRecPtr edit_rows(Edit edit) {
    Relation rel = open_table();
    XLogRecPtr end = InvalidXLogRecPtr;
    if (rel == nullptr) return end;
    const BlockNumber blocks = RelationGetNumberOfBlocks(rel);
    for (BlockNumber b = 0; b < blocks; b++) {
        Buffer buf = ReadBuffer(rel, b);
        LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
        GenericXLogState *wal = GenericXLogStart(rel);
        Page page = GenericXLogRegisterBuffer(wal, buf, 0);
        bool changed = false;
        for (OffsetNumber off = FirstOffsetNumber; off <= PageGetMaxOffsetNumber(page); off++) {
            Row *row = row_of(page, off);
            if (row != nullptr && edit(row)) changed = true;
        }
        if (changed)
            GenericXLogFinish(wal);  // sets the page's LSN to the record's end
        else
            GenericXLogAbort(wal);
        const XLogRecPtr page_lsn = BufferGetLSNAtomic(buf);
        if (page_lsn > end) end = page_lsn;
        UnlockReleaseBuffer(buf);
    }
    table_close(rel, AccessShareLock);
    return end;
}

static void make_durable(XLogRecPtr end, const char *what) {
    if (end == InvalidXLogRecPtr) return;
    XLogFlush(end);
    wait_for_sync_standbys(end, what);
}

static int64 own_writer() {
    return static_cast<int64>(GetSystemIdentifier());
}

void ensure_carried_horizon(SharedState *s, int64_t end_unix_us, const char *what) {
    if (end_unix_us <= carried_horizon_us) return;
    adopt_carried_state_once(s);  // a foreign row is adopted before it is overwritten
    const int64 writer = own_writer();
    int64_t seen = 0;
    make_durable(edit_rows([&](Row *row) {
                     return row->slot == kHorizonSlot &&
                            records::cover_horizon_row(row, end_unix_us, writer, &seen);
                 }),
                 what);
    if (table_missing) {
        // Nothing to carry until the update (see table_missing).
        carried_horizon_us = saturating_add(end_unix_us, records::kCarriedReserveUs);
        return;
    }
    if (seen < end_unix_us)
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("%s: idgen's table \"%s\" has no horizon row", what, kTable),
                        errhint("Restore the table from a dump of this database.")));
    carried_horizon_us = seen;
}

// What this backend last carried per space, and into which table: a carry that it covers is
// skipped (a row only moves up; a table made again by CREATE EXTENSION is saved from the shared
// state, which is at least what was carried, and its new oid does not match).
struct Carried {
    LeaseSpace space;
    LeaseState state;
    Oid table;
};
static Carried carried[8];
static uint32_t carried_next = 0;  // the entry a new space takes (round robin)

static Carried *carried_of(const LeaseSpace &space) {
    for (Carried &c : carried)
        if (c.space == space) return &c;
    return nullptr;
}

void carry_lease(SharedState *s, const LeaseSpace &space, const LeaseState &state, const char *what) {
    adopt_carried_state_once(s);  // a foreign row is adopted before it is overwritten
    const Carried *known = carried_of(space);
    if (known != nullptr && OidIsValid(table_relid) && known->table == table_relid &&
        backfill::covers(known->state, state))
        return;
    const int64 writer = own_writer();
    bool placed = false;
    LeaseState now{};
    auto merge = [&](Row *row) {
        placed = true;
        return records::merge_lease_row(row, space, state, MyDatabaseId, writer, &now);
    };
    auto own = [&](const Row *row) { return records::holds_space(*row, space, MyDatabaseId); };
    // The space's row; only when it has none (its first lease in this database), a free one.
    XLogRecPtr end = edit_rows([&](Row *row) { return !placed && own(row) && merge(row); });
    if (!placed && !table_missing)
        end = edit_rows([&](Row *row) {
            // The space's row again: another session of this database may have just placed it.
            return !placed && (own(row) || records::is_free_row(*row)) && merge(row);
        });
    make_durable(end, what);
    if (table_missing) return;
    if (!placed)
        ereport(ERROR,
                (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                 errmsg("%s: idgen's table \"%s\" has no free row for another id space", what, kTable)));
    Carried *slot = carried_of(space);
    if (slot == nullptr) slot = &carried[carried_next++ % (sizeof carried / sizeof carried[0])];
    *slot = Carried{space, now, table_relid};  // durable: make_durable returned
}

// Takes a row written elsewhere over into this server's state: the horizon through the
// horizon's own protocol (file, WAL), the generators raised with the lead floor; a lease
// counter raised in the lease table.
static void adopt_row(SharedState *s, const Row &row) {
    if (row.slot == kHorizonSlot) {
        adopt_moved_horizon(s, row.value);
    } else if (records::is_lease_row(row)) {
        const records::RowLease l = records::lease_of(row, MyDatabaseId);
        raise_lease(backfill_shared(), l.space, l.state);
    }
}

// Which rows are adopted: records::to_adopt.
void adopt_carried_state_once(SharedState *s) {
    if (adoption_checked) return;
    const int64 writer = own_writer();
    // Every row, however many: the table's fixed rows, and any a data-only restore with its
    // triggers disabled (pg_restore --disable-triggers) appended unmerged.
    int capacity = kLeaseSpaces + 1, n = 0, foreign = 0;
    Row *adopt = static_cast<Row *>(palloc(capacity * sizeof(Row)));
    edit_rows([&](Row *row) {
        foreign += records::written_elsewhere(*row, writer);
        if (!records::to_adopt(*row, writer)) return false;
        if (n == capacity) {
            capacity *= 2;
            adopt = static_cast<Row *>(repalloc(adopt, capacity * sizeof(Row)));
        }
        adopt[n++] = *row;
        return false;
    });
    for (int i = 0; i < n; i++) adopt_row(s, adopt[i]);
    pfree(adopt);
    if (foreign > 0)  // this cluster's own now: adopted once, not by every session
        make_durable(edit_rows([&](Row *row) { return records::claim_row(row, writer); }), "idgen");
    adoption_checked = true;
}

void take_over_row(SharedState *s, const Row &row, bool into_rows, const char *what) {
    if (row.slot != kHorizonSlot && !records::is_lease_row(row)) return;  // free, or another table's guard
    adopt_row(s, row);
    if (!into_rows) return;
    if (row.slot == kHorizonSlot) {
        ensure_carried_horizon(s, row.value, what);
    } else {
        const records::RowLease l = records::lease_of(row, MyDatabaseId);
        carry_lease(s, l.space, l.state, what);
    }
}

// ---- Subscription guard rows -------------------------------------------------------------------
// Written in place like the lease rows (a guard must hold whatever the transaction that wrote
// it does next), made durable before the caller goes on.

int read_guard_rows(Row *out, int max) {
    int n = 0;
    edit_rows([&](Row *row) {
        if (row->slot != kHorizonSlot && row->kind == kGuardKind && n < max) out[n++] = *row;
        return false;
    });
    return n;
}

static bool place_guard_row(int64_t subid, int64_t publisher_node, int32_t state, int32_t flags,
                            const char *what) {
    const int64 writer = own_writer();
    bool placed = false;
    auto put = [&](Row *row) {
        placed = true;
        return records::put_guard_row(row, subid, publisher_node, state, flags, writer);
    };
    XLogRecPtr end =
        edit_rows([&](Row *row) { return !placed && records::is_guard_row(*row, subid) && put(row); });
    if (!placed) end = edit_rows([&](Row *row) { return !placed && records::is_free_row(*row) && put(row); });
    make_durable(end, what);
    return placed;
}

// A guard row outlives its subscription when the transaction that wrote it rolled back, or when
// the subscription was dropped in another database. The catalog is read outside the buffer's
// lock. A subscription being made by a transaction not yet committed is not seen and may lose
// its row: a subscription without a row is guarded as one idgen knows nothing of, the safe side.
static void free_guard_rows_of_gone_subscriptions() {
    CarriedRow rows[kLeaseSpaces];
    const int n = read_guard_rows(rows, kLeaseSpaces);
    for (int i = 0; i < n; i++)
        if (!SearchSysCacheExists1(SUBSCRIPTIONOID, ObjectIdGetDatum(static_cast<Oid>(rows[i].key))))
            free_guard_row(rows[i].key);
}

bool write_guard_row(int64_t subid, int64_t publisher_node, int32_t state, int32_t flags, const char *what) {
    if (place_guard_row(subid, publisher_node, state, flags, what)) return true;
    free_guard_rows_of_gone_subscriptions();
    return place_guard_row(subid, publisher_node, state, flags, what);
}

void free_guard_row(int64_t subid) {
    make_durable(edit_rows([&](Row *row) { return records::free_guard_row(row, subid); }), "idgen");
}

}  // namespace idgen::pg

using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_reserved_state_merge);
PG_FUNCTION_INFO_V1(idgen_reserved_state_save);
}

// BEFORE INSERT trigger of reserved_state: a row loaded by pg_restore is adopted and merged
// into the table's own rows; it is never inserted (the table keeps its fixed rows).
Datum idgen_reserved_state_merge(PG_FUNCTION_ARGS) {
    TriggerData *trigger = reinterpret_cast<TriggerData *>(fcinfo->context);
    if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BEFORE(trigger->tg_event) ||
        !TRIGGER_FIRED_FOR_ROW(trigger->tg_event) || !TRIGGER_FIRED_BY_INSERT(trigger->tg_event))
        elog(ERROR, "idgen_reserved_state_merge: not called as a BEFORE INSERT row trigger");
    // The gate alone: taking rows over only raises state, so the adoptions still pending (the
    // end of an archive recovery, this database's carried rows) may follow at the first
    // generator call; the rows of this database are adopted before they are overwritten
    // (adopt_carried_state_once, first in every write of the rows).
    SharedState *s = require_shared_state("restoring idgen's reserved_state");
    TupleDesc desc = RelationGetDescr(trigger->tg_relation);
    bool isnull[kRowColumns];
    Datum values[kRowColumns];
    heap_deform_tuple(trigger->tg_trigtuple, desc, values, isnull);
    const Row row{DatumGetInt32(values[0]), DatumGetInt32(values[1]), DatumGetInt64(values[2]),
                  DatumGetInt64(values[3]), DatumGetInt64(values[4]), DatumGetInt32(values[5]),
                  DatumGetInt32(values[6])};
    take_over_row(s, row, true, "restoring idgen's reserved_state");
    return PointerGetDatum(nullptr);
}

// () -> void: writes this server's current state into this database's rows (at CREATE
// EXTENSION and at the update from 0.4.0, whose state lived only in the data directory).
Datum idgen_reserved_state_save(PG_FUNCTION_ARGS) {
    SharedState *s = shared_state_or_null();
    if (s == nullptr || RecoveryInProgress()) PG_RETURN_VOID();
    carried_horizon_us = 0;  // this session may have served the schema without the table
    adoption_checked = false;
    table_relid = InvalidOid;  // the table is new: nothing carried into it yet
    for (Carried &c : carried) c.table = InvalidOid;
    ensure_carried_horizon(s, static_cast<int64_t>(idgen::atomic_load(&s->horizon.durable_unix_us)),
                           "CREATE EXTENSION idgen");
    const LeaseTable table = lease_table(backfill_shared());
    for (const LeaseTable::Cell &c : table.cells)
        if (c.space.kind != LeaseKind::free && c.state.next > 0 &&
            (c.space.database == InvalidOid || c.space.database == MyDatabaseId))
            carry_lease(s, c.space, c.state, "CREATE EXTENSION idgen");
    PG_RETURN_VOID();
}
