// Definition lookup through SPI, and the slot_lock around the slot table's logic
// (src/core/sequencers/sequencer_slots.hpp): binding a slot, releasing the slots of dropped sequencers
// when their drop commits, and those of created ones when their creation aborts.
#include "pg/sequencers/sequencer_registry.hpp"

#include "core/base/arithmetic.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/boundary/errors.hpp"
#include "pg/boundary/settings.hpp"
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
#include "utils/syscache.h"
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
static_assert(lengthof(kLayoutNames) == kLayoutKinds, "one earlier layout per kind");

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
    const snowflake::Kind kind = layout_kind(layout_name);
    return layout_of(epoch_ms, max_nodes == 0 ? snowflake::default_max_nodes(kind) : max_nodes, kind);
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

// The earlier definitions of `name` (snowflake_retired, from 0.9.8 on; none in an older schema)
// into out->earlier and out->redefined, within the caller's SPI connection. The node bits of an
// earlier layout are left 0: what its ids lie below depends on its epoch and kind only.
static void read_earlier_definitions(Oid schema, const text *name, SequencerDefinition *out) {
    out->earlier_count = 0;
    out->redefined = false;
    if (!OidIsValid(get_relname_relid("snowflake_retired", schema))) return;
    const char *s = quote_identifier(get_namespace_name(schema));
    const char *query = psprintf(
        "SELECT r.layout, pg_catalog.min(r.epoch), pg_catalog.bool_or(r.epoch OPERATOR(pg_catalog.<>) "
        "d.epoch "
        "OR r.max_nodes OPERATOR(pg_catalog.<>) d.max_nodes OR r.backfill_nodes OPERATOR(pg_catalog.<>) "
        "d.backfill_nodes OR r.layout OPERATOR(pg_catalog.<>) d.layout) "
        "FROM %s.snowflake_retired r JOIN %s.snowflake_definitions d ON d.name OPERATOR(pg_catalog.=) r.name "
        "WHERE r.name OPERATOR(pg_catalog.=) $1 GROUP BY r.layout",
        s, s);
    Oid argtypes[1] = {TEXTOID};
    Datum values[1] = {PointerGetDatum(name)};
    if (SPI_execute_with_args(query, 1, argtypes, values, nullptr, IsInParallelMode(), kLayoutKinds) !=
        SPI_OK_SELECT)
        elog(ERROR, "idgen: looking up a Snowflake sequencer's earlier definitions failed");
    for (uint64 i = 0; i < SPI_processed; i++) {
        bool isnull = false;
        HeapTuple row = SPI_tuptable->vals[i];
        const snowflake::Kind kind =
            layout_kind(DatumGetTextPP(SPI_getbinval(row, SPI_tuptable->tupdesc, 1, &isnull)));
        const TimestampTz epoch = DatumGetTimestampTz(SPI_getbinval(row, SPI_tuptable->tupdesc, 2, &isnull));
        snowflake::merge_earlier(
            out->earlier, &out->earlier_count,
            snowflake::EarlierDefinition{snowflake::Layout{epoch_unix_ms(epoch), 0, 0, kind}, INT64_MIN});
        out->redefined |= DatumGetBool(SPI_getbinval(row, SPI_tuptable->tupdesc, 3, &isnull));
    }
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
    read_earlier_definitions(schema, name, out);
    SPI_finish();
    out->layout = layout_of(epoch_unix_ms(epoch), out->max_nodes, kind);
    out->layout.backfill_nodes = backfill_nodes;
    return true;
}

void find_sequencer_definition(Oid schema, const text *name, SequencerDefinition *out) {
    const int len = sequencer_name_length(name, NameUse::lookup);
    // A Citus worker lacking the sequencer takes the coordinator's definition, once.
    if (!read_sequencer_definition(schema, name, out) &&
        !(fetch_citus_sequencer(name) && read_sequencer_definition(schema, name, out)))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
                        errmsg("Snowflake sequencer \"%s\" does not exist", text_to_cstring(name)),
                        errhint("Create it with snowflake_create().")));
    memcpy(out->name, VARDATA_ANY(name), len);
    out->name[len] = '\0';
    out->name_hash = sequencer_name_hash(out->name, len);
    // The name's definitions gone with no row kept. None can go while this one exists (a name has
    // one definition at a time), so what is read here holds while the definition is cached.
    if (SharedState *s = shared_state_or_null()) {
        LWLockAcquire(s->slot_lock, LW_SHARED);
        out->redefined |= snowflake::add_gone(s->gone, MyDatabaseId, out->name_hash, out->layout,
                                              out->earlier, &out->earlier_count);
        LWLockRelease(s->slot_lock);
    }
}

SequencerSlot *find_sequencer_slot(SharedState *s, Oid table, int64 definition_id) {
    LWLockAcquire(s->slot_lock, LW_SHARED);
    SequencerSlot *slot =
        snowflake::find_slot(s->slots, s->slot_count, SequencerKey{MyDatabaseId, table, definition_id});
    LWLockRelease(s->slot_lock);
    return slot;
}

// 55000 for a definition whose name's earlier definitions issued ids that no id of its layout lies
// above, or above which it would start too far ahead of the clock (`ahead_ms`, -1: never).
static void refuse_start_past_time_field(const SequencerDefinition &def, int64_t ahead_ms = -1) {
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("Snowflake sequencer \"%s\" cannot issue ids above those of its earlier definitions",
                    def.name),
             ahead_ms < 0
                 ? errdetail("Its ids would have to run past the end of its layout's time field.")
                 : errdetail("Its first id would lie %lld ms ahead of the clock (idgen.max_lead = %d ms, "
                             "idgen.max_wait = %d ms): a name dropped and defined again with a later "
                             "epoch, fewer bits below the time field or longer ticks continues above "
                             "every id the name issued on this server.",
                             static_cast<long long>(ahead_ms), max_lead_ms, max_wait_ms),
             errhint("Define the sequencer under a new name, or again as it was before.")));
}

void check_definition_reaches_above(SharedState *s, const SequencerDefinition &def) {
    if (def.earlier_count == 0) return;
    const int64_t now = now_unix_us();
    // Every id this server's sequencers issued (released, held, before the start) ends by then.
    const int64_t bound = s != nullptr ? issued_bound_unix_us(s) : now;
    const snowflake::SlotFloors floors{bound, bound, def.earlier, def.earlier_count};
    uint64_t position = 0;
    if (!snowflake::start_position(def.layout, bound > now ? bound : now, floors, &position))
        refuse_start_past_time_field(def);
    const int64_t ahead_ms = (snowflake::unix_us_of(def.layout, position) - now) / 1000;
    if (ahead_ms > static_cast<int64_t>(max_lead_ms) + max_wait_ms)
        refuse_start_past_time_field(def, ahead_ms);
}

// Whether the sequencer of `key` can never be drawn from again, because what its key names is
// gone: its database (DROP DATABASE), or, in this database, its definitions table (DROP EXTENSION).
// Its slot would otherwise stay held until a restart, and its ids out of the released bound. (A
// definitions table of another database cannot be looked up from here; its slots are reclaimed
// when a sequencer of that database binds one. A definitions table made by a transaction still
// in progress is not seen either: DROP and CREATE EXTENSION in one transaction while another
// session binds a slot makes that transaction's next draw find its key dropped, 42704.)
static bool key_is_gone(const SequencerKey &key) {
    if (key.database != MyDatabaseId)
        return !SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum(key.database));
    return !SearchSysCacheExists1(RELOID, ObjectIdGetDatum(key.table));
}

// Releases the slots of sequencers whose database or definitions table is gone: the slot is freed,
// its key remembered as dropped and its ids under its name (GoneDefinitions), so that a definition
// of the name made later starts above them. The keys are looked up in the catalogs with no lock
// held (a catalog lookup may read and wait); a slot whose key changed meanwhile is left alone
// (release_gone_slot finds slots by key).
static void reclaim_orphaned_slots(SharedState *s) {
    SequencerKey *held = static_cast<SequencerKey *>(palloc(sizeof(SequencerKey) * s->slot_count));
    int count = 0;
    LWLockAcquire(s->slot_lock, LW_SHARED);
    for (int i = 0; i < s->slot_count; i++)
        if (!s->slots[i].key.none()) held[count++] = s->slots[i].key;
    LWLockRelease(s->slot_lock);
    int gone = 0;
    for (int i = 0; i < count; i++)
        if (key_is_gone(held[i])) held[gone++] = held[i];
    if (gone > 0) {
        LWLockAcquire(s->slot_lock, LW_EXCLUSIVE);
        for (int i = 0; i < gone; i++)
            snowflake::release_gone_slot(s->slots, s->slot_count, &s->dropped, &s->gone, held[i]);
        LWLockRelease(s->slot_lock);
    }
    pfree(held);
}

static void release_drops_of_name(SharedState *s, const SequencerDefinition &def);

// A shared look first (the sequencer usually holds its slot already), then the binding under
// the exclusive lock, which looks again: another backend may have bound it in between. Before a
// new slot is bound, the slots whose sequencers are gone are reclaimed, and so is the slot of the
// name's earlier definition that this transaction dropped.
SequencerSlot *bind_sequencer_slot(SharedState *s, const SequencerDefinition &def, uint64_t *generation) {
    LWLockAcquire(s->slot_lock, LW_SHARED);
    SequencerSlot *slot = snowflake::find_slot(s->slots, s->slot_count, def.key);
    if (slot) *generation = atomic_load(&slot->generation);
    LWLockRelease(s->slot_lock);
    if (slot) return slot;

    reclaim_orphaned_slots(s);
    release_drops_of_name(s, def);
    LWLockAcquire(s->slot_lock, LW_EXCLUSIVE);
    snowflake::Bound outcome;
    const snowflake::SlotFloors floors{s->start_floor_us, s->released_bound_us, def.earlier,
                                       def.earlier_count};
    slot = snowflake::bind_slot(s->slots, s->slot_count, s->dropped, def.key, def.name_hash, def.layout,
                                floors, &outcome);
    if (outcome == snowflake::Bound::too_far) {
        LWLockRelease(s->slot_lock);
        refuse_start_past_time_field(def);
    }
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

// Slot changes queued in the current transaction, in TopTransactionContext, each with the
// subtransaction it belongs to:
// - a drop's release (snowflake_drop) follows its drop's fate, as core's ON COMMIT actions do
//   (AtEOSubXact_on_commit_actions): when that subtransaction aborts (ROLLBACK TO SAVEPOINT, a
//   PL/pgSQL EXCEPTION block catching an error) the drop is undone and the release is discarded;
//   at top-level commit it is carried out;
// - a creation (snowflake_create, and a Citus worker's fetch, which creates) is the other way
//   round: when its subtransaction or the transaction aborts, the definition never existed for
//   anyone else, so the slot this backend may have bound for it is released, its key remembered
//   as dropped and its ids remembered under its name (GoneDefinitions); at commit nothing is left
//   to do. Without this the slot would stay
//   held for a key nobody can see, still issuing to this backend's cached binding, while the
//   name's next definition took a fresh slot over the same ticks of the same node.
// A change whose subtransaction commits is handed to its parent.
enum class PendingKind { drop, creation };
struct PendingRelease {
    SequencerKey key;
    SubTransactionId subxact;
    PendingKind kind;
    char name[NAMEDATALEN];  // a drop: destroyed cluster-wide at commit in cluster mode ('' if not given)
    uint64 name_hash;        // a drop: its name's (0 where not given)
    bool retired;            // a drop: its slot released already (at pre-commit, or early: see below)
};
static List *pending_releases = NIL;

static PendingRelease *queue_release(Oid table, int64 definition_id, PendingKind kind) {
    MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
    PendingRelease *release = static_cast<PendingRelease *>(palloc0(sizeof(PendingRelease)));
    release->key = SequencerKey{MyDatabaseId, table, definition_id};
    release->subxact = GetCurrentSubTransactionId();
    release->kind = kind;
    pending_releases = lappend(pending_releases, release);
    MemoryContextSwitchTo(old);
    return release;
}

void release_sequencer_at_commit(Oid table, int64 definition_id, const char *name) {
    PendingRelease *release = queue_release(table, definition_id, PendingKind::drop);
    if (name == nullptr) return;
    strlcpy(release->name, name, sizeof release->name);
    release->name_hash = sequencer_name_hash(name, strlen(name));
}

void release_sequencer_at_abort(Oid table, int64 definition_id) {
    queue_release(table, definition_id, PendingKind::creation);
}

void keep_in_cluster_at_commit(const char *name) {
    ListCell *lc;
    foreach (lc, pending_releases) {
        PendingRelease *release = static_cast<PendingRelease *>(lfirst(lc));
        if (strcmp(release->name, name) == 0) release->name[0] = '\0';
    }
}

static bool any_pending(PendingKind kind) {
    ListCell *lc;
    foreach (lc, pending_releases)
        if (static_cast<PendingRelease *>(lfirst(lc))->kind == kind) return true;
    return false;
}

// What the queued changes of `kind` do to their slots (under slot_lock, exclusive):
// - release: the slot is retired and the key remembered as dropped, so that no backend binds
//   it again (a committed drop; an aborted creation, whose ids are remembered under its name:
//   GoneDefinitions);
// - retire: the slot is retired and its ids remembered under its name, the key may bind again (a
//   prepared creation: COMMIT PREPARED makes it, and its next slot starts above the retired one);
// - forget: the key is no longer remembered as dropped (a drop retired already whose transaction
//   or subtransaction failed after all: its sequencer binds a fresh slot, above
//   released_bound_us and so above every id of the retired one).
// A drop is released once; only a released one is forgotten.
enum class SlotAction { release, retire, forget };
static void apply_pending_locked(SharedState *s, PendingKind kind, SlotAction action,
                                 SubTransactionId only_subxact = InvalidSubTransactionId) {
    ListCell *lc;
    foreach (lc, pending_releases) {
        PendingRelease *r = static_cast<PendingRelease *>(lfirst(lc));
        if (r->kind != kind || (only_subxact != InvalidSubTransactionId && r->subxact != only_subxact))
            continue;
        if (kind == PendingKind::drop && r->retired == (action == SlotAction::release)) continue;
        if (kind == PendingKind::drop) r->retired = action == SlotAction::release;
        if (kind == PendingKind::creation)
            snowflake::release_gone_slot(s->slots, s->slot_count,
                                         action == SlotAction::release ? &s->dropped : nullptr, &s->gone,
                                         r->key);
        else if (action == SlotAction::release)
            snowflake::release_slot(s->slots, s->slot_count, &s->dropped, r->key, &s->released_bound_us);
        else
            snowflake::forget_dropped(&s->dropped, r->key);
    }
}

static void apply_pending(PendingKind kind, SlotAction action,
                          SubTransactionId only_subxact = InvalidSubTransactionId) {
    SharedState *s = shared_state_or_null();
    if (s == nullptr || !any_pending(kind)) return;
    LWLockAcquire(s->slot_lock, LW_EXCLUSIVE);
    apply_pending_locked(s, kind, action, only_subxact);
    LWLockRelease(s->slot_lock);
}

static void follow_subtransaction(SubXactEvent event, SubTransactionId subxact, SubTransactionId parent,
                                  void *) {
    if (event != SUBXACT_EVENT_COMMIT_SUB && event != SUBXACT_EVENT_ABORT_SUB) return;
    if (event == SUBXACT_EVENT_ABORT_SUB) {
        apply_pending(PendingKind::creation, SlotAction::release, subxact);
        apply_pending(PendingKind::drop, SlotAction::forget, subxact);
    }
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

// A definition about to bind a slot in the transaction that dropped its name's earlier definition
// (drop and create in one transaction): the earlier one's slot is released now rather than at
// commit. Until commit other sessions still see the earlier definition and draw from its slot, at
// the same ticks as the new one, on the same node: a new slot started above it now would meet
// its ids later. Released, it issues no more (its sessions find it dropped, 42704, until this
// transaction ends; if this one fails, it is forgotten again and they bind a fresh slot above
// the released bound, as after a failed commit).
static void release_drops_of_name(SharedState *s, const SequencerDefinition &def) {
    ListCell *lc;
    foreach (lc, pending_releases) {
        PendingRelease *r = static_cast<PendingRelease *>(lfirst(lc));
        if (r->kind != PendingKind::drop || r->retired || r->name_hash != def.name_hash || r->key == def.key)
            continue;
        LWLockAcquire(s->slot_lock, LW_EXCLUSIVE);
        snowflake::release_slot(s->slots, s->slot_count, &s->dropped, r->key, &s->released_bound_us);
        LWLockRelease(s->slot_lock);
        r->retired = true;
    }
}

static void release_pending(XactEvent event, void *) {
    // Prepared transactions: a drop would take effect at COMMIT PREPARED, which may run in
    // another session or after a restart, and PostgreSQL 15 calls no callback of an extension
    // there (two-phase resource managers are a fixed table in core). Released at PREPARE, the
    // sequencer would be dead after ROLLBACK PREPARED; never released, its slot would keep
    // ids that a re-created sequencer must start above out of released_bound_us, so the new
    // one could repeat them. So, as core does for temporary objects, PREPARE is refused; the
    // error aborts the transaction and with it the drop. A creation can be prepared (a Citus
    // worker's fetch inside a distributed transaction is): its slot is retired at PREPARE,
    // which is right whichever way it ends.
    if (event == XACT_EVENT_PRE_PREPARE && any_pending(PendingKind::drop))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("cannot PREPARE a transaction that dropped a Snowflake sequencer"),
                        errhint("Drop Snowflake sequencers in a transaction that commits without "
                                "PREPARE TRANSACTION.")));
    if (event == XACT_EVENT_PREPARE) apply_pending(PendingKind::creation, SlotAction::retire);
    // A drop's slot is retired before the commit becomes visible, not after: XACT_EVENT_COMMIT
    // comes after other sessions can see the drop, and so the sequencer re-created in the same
    // transaction, and one of them could give the new sequencer a slot above a released bound
    // that does not cover the old slot yet, while the old slot still issues ids on this node
    // (test/tap/014). Retiring early is safe whatever follows: if the transaction still fails
    // after this point (a serialization failure at commit), its keys are forgotten again and
    // the sequencers bind fresh slots above the bound.
    if (event == XACT_EVENT_PRE_COMMIT) apply_pending(PendingKind::drop, SlotAction::release);
    if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT) {
        apply_pending(PendingKind::drop, SlotAction::forget);
        apply_pending(PendingKind::creation, SlotAction::release);
    }
    // Committed: destroyed cluster-wide (cluster mode; the registry worker does it, no waiting).
    if (event == XACT_EVENT_COMMIT) {
        ListCell *lc;
        foreach (lc, pending_releases) {
            const PendingRelease *release = static_cast<PendingRelease *>(lfirst(lc));
            if (release->kind == PendingKind::drop && release->name[0] != '\0')
                cluster_destroy_at_commit(release->name);
        }
    }
    if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PREPARE ||
        event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT) {
        pending_releases = NIL;  // the list itself goes with TopTransactionContext
    }
}

void register_sequencer_callbacks() {
    RegisterXactCallback(release_pending, nullptr);
    RegisterSubXactCallback(follow_subtransaction, nullptr);
}

}  // namespace idgen::pg
