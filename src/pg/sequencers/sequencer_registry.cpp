// Definition lookup through SPI, and the slot_lock around the slot table's logic
// (src/core/sequencers/sequencer_slots.hpp): binding a slot, and releasing the slots of dropped sequencers
// when their drop commits.
#include "pg/sequencers/sequencer_registry.hpp"

#include "core/base/arithmetic.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/boundary/errors.hpp"
#include "pg/boundary/wall_clock.hpp"
#include "pg/cluster/citus_sequencers.hpp"
#include "pg/cluster/cluster_shared.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
}

namespace idgen::pg {

// How much of a name to quote in a message: at most 64 bytes, cut at a character's edge (a cut
// inside a multibyte character would make the message itself invalid in the server encoding).
static int quoted_length(const char *chars, int len) {
    return pg_mbcliplen(chars, len, 64);
}

int sequencer_name_length(const text *name, NameUse use) {
    const int len = VARSIZE_ANY_EXHDR(name);
    if (len >= 1 && len < NAMEDATALEN) return len;
    if (use == NameUse::create)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("a Snowflake sequencer name must be 1 to %d bytes long", NAMEDATALEN - 1)));
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
                    errmsg("Snowflake sequencer \"%.*s\" does not exist",
                           quoted_length(VARDATA_ANY(name), len), VARDATA_ANY(name))));
    pg_unreachable();
}

// The layouts by the names SQL knows them by, in Kind's order.
static const char *const kLayoutNames[] = {"idgen", "snowcast", "sonyflake", "javascript"};

const char *layout_name(snowflake::Kind kind) {
    return kLayoutNames[static_cast<int>(kind)];
}

snowflake::Kind layout_kind(const text *layout) {
    if (layout == nullptr) return snowflake::Kind::idgen;
    const int len = VARSIZE_ANY_EXHDR(layout);
    const char *chars = VARDATA_ANY(layout);
    for (int k = 0; k < static_cast<int>(lengthof(kLayoutNames)); k++)
        if (static_cast<size_t>(len) == strlen(kLayoutNames[k]) && memcmp(chars, kLayoutNames[k], len) == 0)
            return static_cast<snowflake::Kind>(k);
    ereport(ERROR,
            (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
             errmsg("unknown Snowflake layout \"%.*s\"", quoted_length(chars, len), chars),
             errhint("Use 'idgen' (the default: ids stay positive), 'snowcast' (all 64 bits, as snowcast "
                     "lays them out), 'sonyflake' (Sony's: 10 ms ticks, 65,536 machine ids) or "
                     "'javascript' (ids below 2^53).")));
    pg_unreachable();
}

// The epoch's millisecond rounded towards the past, as every layout rounds times.
static int64_t epoch_unix_ms(TimestampTz epoch) {
    return floor_div(unix_micros_from_timestamptz(epoch), 1000);
}

static snowflake::Layout layout_of(int64_t epoch_ms, int32 max_nodes, snowflake::Kind kind) {
    int node_bits = 0;
    check(snowflake::node_bits_for(kind, max_nodes, &node_bits), "max_nodes");
    return snowflake::Layout{epoch_ms, node_bits, 0, kind};
}

int64_t explicit_epoch_unix_ms(TimestampTz epoch) {
    if (TIMESTAMP_NOT_FINITE(epoch))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("a sequencer epoch must be a finite time")));
    return epoch_unix_ms(epoch);
}

snowflake::Layout explicit_layout(TimestampTz epoch, int32 max_nodes, const text *layout_name) {
    const int64_t epoch_ms = explicit_epoch_unix_ms(epoch);  // its error first, then the layout's
    return layout_of(epoch_ms, max_nodes, layout_kind(layout_name));
}

int32 check_sequencer_definition(const text *name, TimestampTz epoch, int32 max_nodes, int32 backfill_nodes,
                                 const text *layout_name) {
    sequencer_name_length(name, NameUse::create);
    const snowflake::Layout layout = explicit_layout(epoch, max_nodes, layout_name);
    check(snowflake::check_epoch(layout, unix_micros_from_timestamptz(epoch), now_unix_us()));
    check(snowflake::check_backfill_nodes(layout, backfill_nodes), "backfill_nodes");
    return layout.max_nodes();
}

uint64 sequencer_name_hash(const char *name, size_t len) {
    return hash_bytes_extended(reinterpret_cast<const unsigned char *>(name), len, 0);
}

// The definition of `name` in the table of `schema` into *out; false when there is none.
static bool read_sequencer_definition(Oid schema, const text *name, SequencerDefinition *out) {
    // backfill_nodes, backfill_owner and layout through to_jsonb: the columns exist from versions
    // 0.4.0, 0.5.0 and 0.6.0 on, and this library must also serve older schemas until ALTER
    // EXTENSION idgen UPDATE has run.
    const char *query = psprintf(
        "SELECT d.id, d.epoch, d.max_nodes, d.tableoid, "
        "COALESCE((pg_catalog.to_jsonb(d) OPERATOR(pg_catalog.->>) 'backfill_nodes')::pg_catalog.int4, 0), "
        "COALESCE((pg_catalog.to_jsonb(d) OPERATOR(pg_catalog.->>) 'backfill_owner')::pg_catalog.int4, -1), "
        "COALESCE(pg_catalog.to_jsonb(d) OPERATOR(pg_catalog.->>) 'layout', 'idgen') "
        "FROM %s.snowflake_definitions d WHERE d.name OPERATOR(pg_catalog.=) $1",
        quote_identifier(get_namespace_name(schema)));
    Oid argtypes[1] = {TEXTOID};
    Datum values[1] = {PointerGetDatum(name)};

    SPI_connect();
    // Not read-only: in READ COMMITTED that takes a fresh snapshot, so a drop committed while
    // this statement runs is seen at once. Except in parallel mode (a parallel worker running a
    // decoder, or the leader of a parallel plan running a generator above its Gather), where a
    // new command may not start: the statement's snapshot is read, and a drop committed since
    // is seen by the slot's generation instead (snowflake_next then fails with 42704).
    if (SPI_execute_with_args(query, 1, argtypes, values, nullptr, IsInParallelMode(), 1) != SPI_OK_SELECT)
        elog(ERROR, "idgen: looking up a Snowflake sequencer failed");
    if (SPI_processed == 0) {
        SPI_finish();
        return false;
    }
    bool isnull = false;
    HeapTuple row = SPI_tuptable->vals[0];
    TupleDesc desc = SPI_tuptable->tupdesc;
    out->key.database = MyDatabaseId;
    out->key.definition_id = DatumGetInt64(SPI_getbinval(row, desc, 1, &isnull));
    const TimestampTz epoch = DatumGetTimestampTz(SPI_getbinval(row, desc, 2, &isnull));
    out->max_nodes = DatumGetInt32(SPI_getbinval(row, desc, 3, &isnull));
    out->key.table = DatumGetObjectId(SPI_getbinval(row, desc, 4, &isnull));
    const int32 backfill_nodes = DatumGetInt32(SPI_getbinval(row, desc, 5, &isnull));
    out->backfill_owner = DatumGetInt32(SPI_getbinval(row, desc, 6, &isnull));
    const snowflake::Kind kind = layout_kind(DatumGetTextPP(SPI_getbinval(row, desc, 7, &isnull)));
    SPI_finish();
    out->layout = layout_of(epoch_unix_ms(epoch), out->max_nodes, kind);
    out->layout.backfill_nodes = backfill_nodes;
    return true;
}

void find_sequencer_definition(Oid schema, const text *name, SequencerDefinition *out) {
    const int len = sequencer_name_length(name, NameUse::lookup);
    // A Citus worker lacking the sequencer takes the coordinator's definition, once.
    if (!read_sequencer_definition(schema, name, out) &&
        !(fetch_citus_sequencer(schema, name) && read_sequencer_definition(schema, name, out)))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
                        errmsg("Snowflake sequencer \"%s\" does not exist", text_to_cstring(name)),
                        errhint("Create it with snowflake_create().")));
    memcpy(out->name, VARDATA_ANY(name), len);
    out->name[len] = '\0';
    out->name_hash = sequencer_name_hash(out->name, len);
}

SequencerSlot *find_sequencer_slot(SharedState *s, Oid table, int64 definition_id) {
    LWLockAcquire(s->slot_lock, LW_SHARED);
    SequencerSlot *slot =
        snowflake::find_slot(s->slots, s->slot_count, SequencerKey{MyDatabaseId, table, definition_id});
    LWLockRelease(s->slot_lock);
    return slot;
}

// A shared look first (the sequencer usually holds its slot already), then the binding under
// the exclusive lock, which looks again: another backend may have bound it in between.
SequencerSlot *bind_sequencer_slot(SharedState *s, const SequencerDefinition &def, uint64_t *generation) {
    LWLockAcquire(s->slot_lock, LW_SHARED);
    SequencerSlot *slot = snowflake::find_slot(s->slots, s->slot_count, def.key);
    if (slot) *generation = atomic_load(&slot->generation);
    LWLockRelease(s->slot_lock);
    if (slot) return slot;

    LWLockAcquire(s->slot_lock, LW_EXCLUSIVE);
    snowflake::Bound outcome;
    slot = snowflake::bind_slot(s->slots, s->slot_count, s->dropped, def.key, def.layout, s->start_floor_us,
                                s->released_bound_us, &outcome);
    if (outcome == snowflake::Bound::dropped) {
        LWLockRelease(s->slot_lock);
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
                        errmsg("Snowflake sequencer \"%s\" was dropped", def.name)));
    }
    if (outcome == snowflake::Bound::full) {
        LWLockRelease(s->slot_lock);
        ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                        errmsg("all %d Snowflake sequencer slots are in use", s->slot_count),
                        errhint("Raise idgen.max_sequencers (needs a restart) or drop unused sequencers.")));
    }
    *generation = atomic_load(&slot->generation);
    LWLockRelease(s->slot_lock);
    return slot;
}

// Releases queued by snowflake_drop in the current transaction, in TopTransactionContext,
// each with the subtransaction it belongs to. A release follows its drop's fate, as core's
// ON COMMIT actions do (AtEOSubXact_on_commit_actions): when that subtransaction aborts
// (ROLLBACK TO SAVEPOINT, a PL/pgSQL EXCEPTION block catching an error) the drop is undone
// and the release is discarded; when it commits, the release is handed to its parent; at
// top-level commit what is left is carried out.
struct PendingRelease {
    SequencerKey key;
    SubTransactionId subxact;
    char name[NAMEDATALEN];  // destroyed cluster-wide at commit in cluster mode ('' if not given)
};
static List *pending_releases = NIL;

void release_sequencer_at_commit(Oid table, int64 definition_id, const char *name) {
    MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
    PendingRelease *release = static_cast<PendingRelease *>(palloc0(sizeof(PendingRelease)));
    release->key = SequencerKey{MyDatabaseId, table, definition_id};
    release->subxact = GetCurrentSubTransactionId();
    if (name != nullptr) strlcpy(release->name, name, sizeof release->name);
    pending_releases = lappend(pending_releases, release);
    MemoryContextSwitchTo(old);
}

void keep_in_cluster_at_commit(const char *name) {
    ListCell *lc;
    foreach (lc, pending_releases) {
        PendingRelease *release = static_cast<PendingRelease *>(lfirst(lc));
        if (strcmp(release->name, name) == 0) release->name[0] = '\0';
    }
}

static void follow_subtransaction(SubXactEvent event, SubTransactionId subxact, SubTransactionId parent,
                                  void *) {
    if (event != SUBXACT_EVENT_COMMIT_SUB && event != SUBXACT_EVENT_ABORT_SUB) return;
    ListCell *lc;
    foreach (lc, pending_releases) {
        PendingRelease *release = static_cast<PendingRelease *>(lfirst(lc));
        if (release->subxact != subxact) continue;
        if (event == SUBXACT_EVENT_COMMIT_SUB) {
            release->subxact = parent;
        } else {
            pending_releases = foreach_delete_current(pending_releases, lc);
            pfree(release);
        }
    }
}

// Retires the slots of the sequencers in pending_releases and remembers their keys as dropped,
// so that no backend binds them again (under slot_lock, exclusive).
static void retire_pending_locked(SharedState *s) {
    ListCell *lc;
    foreach (lc, pending_releases)
        snowflake::release_slot(s->slots, s->slot_count, &s->dropped,
                                static_cast<PendingRelease *>(lfirst(lc))->key, &s->released_bound_us);
}

// The transaction failed after its slots were retired: its sequencers were not dropped after
// all. Forgetting their keys lets them bind a fresh slot, which starts above released_bound_us
// and so above every id of the retired one.
static void forget_pending_locked(SharedState *s) {
    ListCell *lc;
    foreach (lc, pending_releases)
        snowflake::forget_dropped(&s->dropped, static_cast<PendingRelease *>(lfirst(lc))->key);
}

static bool retired_at_pre_commit = false;

static void release_pending(XactEvent event, void *) {
    // Prepared transactions: the drop would take effect at COMMIT PREPARED, which may run in
    // another session or after a restart, and PostgreSQL 15 calls no callback of an extension
    // there (two-phase resource managers are a fixed table in core). Released at PREPARE, the
    // sequencer would be dead after ROLLBACK PREPARED; never released, its slot would keep
    // ids that a re-created sequencer must start above out of released_bound_us, so the new
    // one could repeat them. So, as core does for temporary objects, PREPARE is refused; the
    // error aborts the transaction and with it the drop.
    if (event == XACT_EVENT_PRE_PREPARE && pending_releases != NIL)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("cannot PREPARE a transaction that dropped a Snowflake sequencer"),
                        errhint("Drop Snowflake sequencers in a transaction that commits without "
                                "PREPARE TRANSACTION.")));
    // The slots are retired before the commit becomes visible, not after: XACT_EVENT_COMMIT
    // comes after other sessions can see the drop, and so the sequencer re-created in the same
    // transaction, and one of them could give the new sequencer a slot above a released bound
    // that does not cover the old slot yet, while the old slot still issues ids on this node
    // (test/tap/014). Retiring early is safe whatever follows: if the transaction still fails
    // after this point (a serialization failure at commit), its keys are forgotten again and
    // the sequencers bind fresh slots above the bound.
    SharedState *s = shared_state_or_null();
    if (event == XACT_EVENT_PRE_COMMIT && s != nullptr && pending_releases != NIL) {
        LWLockAcquire(s->slot_lock, LW_EXCLUSIVE);
        retire_pending_locked(s);
        LWLockRelease(s->slot_lock);
        retired_at_pre_commit = true;
    }
    if ((event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT) && retired_at_pre_commit &&
        s != nullptr) {
        LWLockAcquire(s->slot_lock, LW_EXCLUSIVE);
        forget_pending_locked(s);
        LWLockRelease(s->slot_lock);
    }
    // Committed: destroyed cluster-wide (cluster mode; the registry worker does it, no waiting).
    if (event == XACT_EVENT_COMMIT) {
        ListCell *lc;
        foreach (lc, pending_releases) {
            const PendingRelease *release = static_cast<PendingRelease *>(lfirst(lc));
            if (release->name[0] != '\0') cluster_destroy_at_commit(release->name);
        }
    }
    if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PREPARE ||
        event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT) {
        pending_releases = NIL;  // the list itself goes with TopTransactionContext
        retired_at_pre_commit = false;
    }
}

void register_sequencer_callbacks() {
    RegisterXactCallback(release_pending, nullptr);
    RegisterSubXactCallback(follow_subtransaction, nullptr);
}

}  // namespace idgen::pg
