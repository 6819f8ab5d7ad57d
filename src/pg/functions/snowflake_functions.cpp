// SQL functions of Snowflake sequencers: snowflake_next, snowflake_at, the decoders
// (snowflake_timestamp, snowflake_node, snowflake_counter, snowflake_min_id), and the internal
// helpers behind snowflake_create, snowflake_drop and the snowflake_sequencers view.
#include "core/registry/registry_lease.hpp"
#include "core/layouts/snowflake.hpp"
#include "pg/cluster/cluster_shared.hpp"
#include "pg/backfill/backfill_sessions.hpp"
#include "pg/boundary/convert.hpp"
#include "pg/boundary/errors.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/sequencers/sequencer_cache.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/shared_memory/shared_state.hpp"
#include "pg/functions/generate.hpp"

extern "C" {
#include "funcapi.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
}

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_snowflake_next);
PG_FUNCTION_INFO_V1(idgen_snowflake_at);
PG_FUNCTION_INFO_V1(idgen_snowflake_timestamp);
PG_FUNCTION_INFO_V1(idgen_snowflake_node);
PG_FUNCTION_INFO_V1(idgen_snowflake_counter);
PG_FUNCTION_INFO_V1(idgen_snowflake_min_id);
PG_FUNCTION_INFO_V1(idgen_snowflake_check_definition);
PG_FUNCTION_INFO_V1(idgen_snowflake_release);
PG_FUNCTION_INFO_V1(idgen_snowflake_state);
PG_FUNCTION_INFO_V1(idgen_snowflake_attach);
PG_FUNCTION_INFO_V1(idgen_snowflake_detach);
}

// What one call site (one function expression in one query) remembers between calls, so
// that the hot path looks nothing up: its cache entry, valid while the cache version holds.
struct CallSite {
    CachedSequencer *entry;
    uint64 version;
    size_t name_length;
};

// The extension's schema: the one this SQL function was created in.
static Oid extension_schema(FunctionCallInfo fcinfo) {
    return get_func_namespace(fcinfo->flinfo->fn_oid);
}

static CachedSequencer *sequencer_of(FunctionCallInfo fcinfo, const text *name) {
    CallSite *site = static_cast<CallSite *>(fcinfo->flinfo->fn_extra);
    const size_t len = VARSIZE_ANY_EXHDR(name);
    if (site != nullptr && site->version == sequencer_cache_version() && site->name_length == len &&
        memcmp(site->entry->name, VARDATA_ANY(name), len) == 0)
        return site->entry;
    CachedSequencer *entry = cached_sequencer(extension_schema(fcinfo), name);
    if (site == nullptr) {
        site = static_cast<CallSite *>(MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(CallSite)));
        fcinfo->flinfo->fn_extra = site;
    }
    site->entry = entry;
    site->version = entry->version;
    site->name_length = len;
    return entry;
}

static bool still_bound(const CachedSequencer *e) {
    return e->slot != nullptr && atomic_load(&e->slot->generation) == e->generation;
}

// A definition as the cluster registry compares it (cluster mode): canonical JSON, keys sorted.
static void definition_text(int64_t epoch_unix_ms, int32 max_nodes, int32 backfill_nodes, snowflake::Width width,
                            char *out) {
    snprintf(out, kDefinitionText, "{\"backfill_nodes\":%d,\"epoch_ms\":%lld,\"layout\":\"%s\",\"max_nodes\":%d}",
             backfill_nodes, static_cast<long long>(epoch_unix_ms), layout_name(width), max_nodes);
}

// The definition text of a cached sequencer.
static void definition_text(const SequencerDefinition &def, char *out) {
    definition_text(def.layout.epoch_unix_ms, def.max_nodes, def.layout.backfill_nodes, def.layout.width, out);
}

// The sequencer's claim in cluster mode (registered and attached by its first draw:
// cluster_claim_node).
static Claim *claim_of(ClusterShared *cluster, CachedSequencer *site) {
    if (site->claim == nullptr) {
        char definition[kDefinitionText];
        definition_text(site->def, definition);
        site->claim = cluster_claim(cluster, site->def.name, definition,
                                    site->def.max_nodes - site->def.layout.backfill_nodes);
    }
    return site->claim;
}

// The node id snowflake_next draws with: the sequencer's claim in cluster mode, idgen.node_id
// otherwise.
static NodeSource sequencer_node(CachedSequencer *site) {
    NodeSource n;
    n.cluster = cluster_shared();
    if (n.cluster != nullptr) {
        n.claim = claim_of(n.cluster, site);
        n.read("snowflake_next()");
        return n;
    }
    if (!snowflake::node_fits(site->def.layout, node_id))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("Snowflake sequencer \"%s\" is detached on this server", site->def.name),
                        errdetail("idgen.node_id is %d; the sequencer's live node ids are 0..%d.", node_id,
                                  site->def.max_nodes - site->def.layout.backfill_nodes - 1),
                        errhint("Set idgen.node_id in postgresql.conf to this server's unique node id "
                                "and restart.")));
    n.node = node_id;
    return n;
}

Datum idgen_snowflake_next(PG_FUNCTION_ARGS) {
    SharedState *shared = require_shared_state("snowflake_next()");
    const text *name = PG_GETARG_TEXT_PP(0);
    CachedSequencer *site = sequencer_of(fcinfo, name);
    NodeSource node = sequencer_node(site);
    const snowflake::Next n = draw_until_issued(shared, Generator::snowflake_next, "snowflake_next()", [&](int64_t now_ns, Status *error) {
        if (!still_bound(site)) {
            if (site->slot != nullptr)  // released: dropped, or dropped and created again?
                refresh_cached_sequencer(extension_schema(fcinfo), name, site);
            site->slot = bind_sequencer_slot(shared, site->def, &site->generation);
            site->run = PositionRun{};
            site->stored_unix_ms = -1;
        }
        snowflake::Next d = snowflake::next_in_generation(&site->slot->clock, &site->slot->generation,
                                                          site->generation, site->def.layout, node.node,
                                                          now_ns / 1000, max_lead_ms, error,
                                                          ordered_run(shared, &site->run, now_ns));
        if (d.kind == snowflake::Next::Kind::retired) {
            d.kind = snowflake::Next::Kind::wait;  // the slot changed hands during the draw: again
            d.ahead_ms = 0;
        }
        return d;
    }, &node);
    count_issued(shared, site->slot, site->generation);
    // Once per millisecond per backend, not per id: the line is shared by all drawers.
    if (n.unix_ms != site->stored_unix_ms) {
        site->stored_unix_ms = n.unix_ms;
        atomic_store(&site->slot->last_unix_ms, static_cast<uint64_t>(n.unix_ms));
    }
    PG_RETURN_INT64(n.id);
}

// (name text, ts timestamptz) -> bigint: a retrospective id whose time field is ts's millisecond,
// on one of the node ids the sequencer reserves for backfill. Not STRICT: a NULL is an error.
Datum idgen_snowflake_at(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("snowflake_at: %s must not be NULL", PG_ARGISNULL(0) ? "name" : "ts")));
    SharedState *shared = require_shared_state("snowflake_at()");
    const text *name = PG_GETARG_TEXT_PP(0);
    CachedSequencer *site = sequencer_of(fcinfo, name);
    const snowflake::Layout layout = site->def.layout;
    const int64_t us = unix_micros_from_timestamptz(PG_GETARG_TIMESTAMPTZ(1));
    int64_t id = 0;
    const Status valid = snowflake::at(layout, us, 0, 0, &id);  // the time and the reserved nodes
    if (valid.code == Errc::not_attached)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("Snowflake sequencer \"%s\" reserves no node ids for backfill", site->def.name),
                        errhint("Create a sequencer with backfill_nodes, e.g. snowflake_create('%s_backfill', "
                                "max_nodes => 128, backfill_nodes => 16).", site->def.name)));
    check(valid);
    // One lease space per sequencer name in this database: a sequencer dropped and created
    // again goes on with the namespaces after the old one's.
    const LeaseSpace space{LeaseKind::snowflake, MyDatabaseId, site->def.name_hash};
    if (cluster_shared() != nullptr) {
        // Cluster mode: the registry's counter of the name numbers windows of the reserved node
        // ids for every server (cluster_backfill.hpp), in place of the one-owner rule below. The
        // definition is the cluster's (42710 otherwise: windows of another layout would meet
        // these), and the sequencer not destroyed: the same check as snowflake_next's.
        (void)sequencer_node(site);
        const uint64_t windows = snowflake::cluster_backfill_windows(layout);
        const BackfillDraw d = draw_backfill(shared, space, snowflake::cluster_backfill_per_namespace(layout),
                                             snowflake::cluster_backfill_namespaces(layout), windows,
                                             snowflake::backfill_key(us), "snowflake_at()");
        uint64_t lease = 0, offset = 0;
        snowflake::cluster_backfill_position(layout, d.ns, d.offset, &lease, &offset);
        check(snowflake::at(layout, us, lease, offset, &id));
        PG_RETURN_INT64(id);
    }
    // The reserved node ids are leased from this server's own counter: two servers backfilling
    // one sequencer would lease the same ones. So only the owner (the server that created the
    // sequencer, or the one an administrator named) may.
    if (site->def.backfill_owner >= 0 && site->def.backfill_owner != node_id)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("snowflake_at(): the backfill of Snowflake sequencer \"%s\" belongs to the server "
                               "with node id %d", site->def.name, site->def.backfill_owner),
                        errdetail("This server's idgen.node_id is %d. Its reserved node ids are leased from one "
                                  "server's counter, so only one server may backfill a sequencer.", node_id),
                        errhint("Run the backfill there; or, once no other server backfills it, move it: "
                                "UPDATE snowflake_definitions SET backfill_owner = %d WHERE name = '%s'.",
                                node_id, site->def.name)));
    const BackfillDraw d = draw_backfill(shared, space, snowflake::backfill_per_namespace(layout),
                                         static_cast<uint64_t>(layout.backfill_nodes), 1,
                                         snowflake::backfill_key(us), "snowflake_at()");
    check(snowflake::at(layout, us, d.ns, d.offset, &id));
    PG_RETURN_INT64(id);
}

static snowflake::Parts decode_arg(FunctionCallInfo fcinfo) {
    const CachedSequencer *site = sequencer_of(fcinfo, PG_GETARG_TEXT_PP(0));
    snowflake::Parts parts{};
    check(snowflake::decode(site->def.layout, PG_GETARG_INT64(1), &parts));
    return parts;
}

Datum idgen_snowflake_timestamp(PG_FUNCTION_ARGS) {
    PG_RETURN_TIMESTAMPTZ(timestamptz_from_unix_micros(decode_arg(fcinfo).unix_ms * 1000));
}

Datum idgen_snowflake_node(PG_FUNCTION_ARGS) {
    PG_RETURN_INT32(decode_arg(fcinfo).node);
}

Datum idgen_snowflake_counter(PG_FUNCTION_ARGS) {
    PG_RETURN_INT32(decode_arg(fcinfo).counter);
}

Datum idgen_snowflake_min_id(PG_FUNCTION_ARGS) {
    const CachedSequencer *site = sequencer_of(fcinfo, PG_GETARG_TEXT_PP(0));
    int64_t id = 0;
    check(snowflake::min_id(site->def.layout, unix_micros_from_timestamptz(PG_GETARG_TIMESTAMPTZ(1)), &id));
    PG_RETURN_INT64(id);
}

// The fourth argument (backfill_nodes) exists from version 0.4.0 on, the fifth (layout) from
// 0.6.0 on; an older schema calls with fewer until ALTER EXTENSION idgen UPDATE.
static int32 backfill_nodes_arg(FunctionCallInfo fcinfo, int arg) {
    return PG_NARGS() > arg ? PG_GETARG_INT32(arg) : 0;
}

static const text *layout_arg(FunctionCallInfo fcinfo, int arg) {
    return PG_NARGS() > arg ? PG_GETARG_TEXT_PP(arg) : nullptr;
}

// In cluster mode the definition is also registered cluster-wide (42710 on a conflict).
Datum idgen_snowflake_check_definition(PG_FUNCTION_ARGS) {
    const int32 backfill_nodes = backfill_nodes_arg(fcinfo, 3);
    const text *layout = layout_arg(fcinfo, 4);
    const int32 nodes = check_sequencer_definition(PG_GETARG_TEXT_PP(0), PG_GETARG_TIMESTAMPTZ(1),
                                                   PG_GETARG_INT32(2), backfill_nodes, layout);
    if (ClusterShared *cluster = cluster_shared()) {
        keep_in_cluster_at_commit(text_to_cstring(PG_GETARG_TEXT_PP(0)));
        char definition[kDefinitionText];
        definition_text(unix_micros_from_timestamptz(PG_GETARG_TIMESTAMPTZ(1)) / 1000, nodes, backfill_nodes,
                        layout_width(layout), definition);
        cluster_register(cluster, text_to_cstring(PG_GETARG_TEXT_PP(0)), definition, nodes - backfill_nodes);
    }
    PG_RETURN_INT32(nodes);
}

// (definitions, definition id[, name]): the name (from 0.6.0 on) is destroyed cluster-wide at
// commit in cluster mode.
Datum idgen_snowflake_release(PG_FUNCTION_ARGS) {
    release_sequencer_at_commit(PG_GETARG_OID(0), PG_GETARG_INT64(1),
                                PG_NARGS() > 2 ? text_to_cstring(PG_GETARG_TEXT_PP(2)) : nullptr);
    invalidate_sequencer_caches(PG_GETARG_OID(0));
    PG_RETURN_VOID();
}

// (definitions table, definition id, max_nodes[, backfill_nodes[, layout[, name]]]) -> node_bits,
// counter_bits, node_id, state, ids_issued, last_id_time
Datum idgen_snowflake_state(PG_FUNCTION_ARGS) {
    const Oid table = PG_GETARG_OID(0);
    const int64 definition_id = PG_GETARG_INT64(1);
    int node_bits = 0;
    check(snowflake::node_bits_for(PG_GETARG_INT32(2), &node_bits), "max_nodes");
    const snowflake::Layout layout{0, node_bits, backfill_nodes_arg(fcinfo, 3), layout_width(layout_arg(fcinfo, 4))};

    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        elog(ERROR, "idgen: _snowflake_state must return a record");
    desc = BlessTupleDesc(desc);
    Datum values[6];
    bool nulls[6] = {false, false, false, false, false, false};

    SharedState *shared = shared_state_or_null();
    values[0] = Int32GetDatum(node_bits);
    values[1] = Int32GetDatum(layout.counter_bits());
    ClusterShared *cluster = cluster_shared();
    if (cluster != nullptr && PG_NARGS() > 5) {  // cluster mode: the node id this server holds for it
        bool found = false;
        const ClaimWord w = cluster_claim_word(cluster, text_to_cstring(PG_GETARG_TEXT_PP(5)), &found);
        const bool attached = found && w.state() == ClaimState::attached &&
                              registry::within_deadline(static_cast<int64_t>(atomic_load(&cluster->deadline_ns)), monotonic_ns());
        values[2] = Int32GetDatum(attached ? w.node() : 0);
        nulls[2] = !attached;
        values[3] = CStringGetTextDatum(attached ? "attached"
                                        : found && w.state() == ClaimState::destroyed ? "destroyed" : "detached");
    } else {
        const bool attached = shared != nullptr && snowflake::node_fits(layout, node_id);
        values[2] = Int32GetDatum(node_id);
        nulls[2] = node_id < 0;
        values[3] = CStringGetTextDatum(attached ? "attached" : "detached");
    }
    const SequencerSlot *slot = shared ? find_sequencer_slot(shared, table, definition_id) : nullptr;
    const uint64_t issued = slot ? issued_total(shared, slot) : 0;
    values[4] = Int64GetDatum(static_cast<int64>(issued));
    const uint64_t last_ms = slot ? atomic_load(&slot->last_unix_ms) : 0;
    values[5] = TimestampTzGetDatum(timestamptz_from_unix_micros(static_cast<int64>(last_ms) * 1000));
    nulls[5] = issued == 0;
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

static ClusterShared *require_cluster(const char *what) {
    ClusterShared *cluster = cluster_shared();
    if (cluster == nullptr)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s needs cluster mode", what),
                        errdetail("Without idgen.registry a server's node id is idgen.node_id, fixed at start."),
                        errhint("Set idgen.registry to the etcd endpoints (and remove idgen.node_id), then restart.")));
    return cluster;
}

// (name) -> integer: the node id this server holds for the sequencer after claiming one.
Datum idgen_snowflake_attach(PG_FUNCTION_ARGS) {
    ClusterShared *cluster = require_cluster("snowflake_attach()");
    CachedSequencer *site = sequencer_of(fcinfo, PG_GETARG_TEXT_PP(0));
    char definition[kDefinitionText];
    definition_text(site->def, definition);
    site->claim = nullptr;
    PG_RETURN_INT32(cluster_attach(cluster, site->def.name, definition,
                                   site->def.max_nodes - site->def.layout.backfill_nodes));
}

// (name) -> void: gives this server's node id of the sequencer back; it stays detached here
// until snowflake_attach.
Datum idgen_snowflake_detach(PG_FUNCTION_ARGS) {
    ClusterShared *cluster = require_cluster("snowflake_detach()");
    const CachedSequencer *site = sequencer_of(fcinfo, PG_GETARG_TEXT_PP(0));
    cluster_detach(cluster, site->def.name);
    PG_RETURN_VOID();
}
