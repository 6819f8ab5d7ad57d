// The internal functions behind snowflake_create, snowflake_drop, the snowflake_sequencers view,
// snowflake_attach and snowflake_detach: checking and registering a definition, following a
// created one's transaction, releasing a dropped sequencer's slot, a sequencer's row of the view, a node id
// claimed or given back, and the Citus group that tells snowflake_create and snowflake_drop whether to reach
// the workers.
#include "core/layouts/snowflake.hpp"
#include "core/registry/registry_lease.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/boundary/errors.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/cluster/node_source.hpp"
#include "pg/functions/sequencer_call_site.hpp"
#include "pg/sequencers/sequencer_registry.hpp"
#include "pg/shared_memory/shared_state.hpp"

extern "C" {
#include "funcapi.h"
#include "utils/lsyscache.h"
}

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_snowflake_check_definition);
PG_FUNCTION_INFO_V1(idgen_snowflake_release);
PG_FUNCTION_INFO_V1(idgen_snowflake_created);
PG_FUNCTION_INFO_V1(idgen_snowflake_state);
PG_FUNCTION_INFO_V1(idgen_snowflake_attach);
PG_FUNCTION_INFO_V1(idgen_snowflake_detach);
PG_FUNCTION_INFO_V1(idgen_citus_group);
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
                        layout_kind(layout), definition);
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

// (definitions, definition id, name): snowflake_create made the definition in this transaction.
// Its slot follows the transaction (released if it aborts), every backend's cache is told at
// commit and this one's at once if it aborts (a catalog row inserted queues no invalidation by
// itself), and it is refused (55000) if it cannot start above its name's earlier definitions. The
// definition is read from the definitions table given (this function lives in idgen's internal
// schema, not beside the table).
Datum idgen_snowflake_created(PG_FUNCTION_ARGS) {
    release_sequencer_at_abort(PG_GETARG_OID(0), PG_GETARG_INT64(1));
    invalidate_sequencer_caches(PG_GETARG_OID(0));
    SequencerDefinition def;
    find_sequencer_definition(get_rel_namespace(PG_GETARG_OID(0)), PG_GETARG_TEXT_PP(2), &def);
    check_definition_reaches_above(shared_state_or_null(), def);
    PG_RETURN_VOID();
}

// (definitions table, definition id, max_nodes[, backfill_nodes[, layout[, name]]]) -> node_bits,
// counter_bits, node_id, state, ids_issued, last_id_time
Datum idgen_snowflake_state(PG_FUNCTION_ARGS) {
    const Oid table = PG_GETARG_OID(0);
    const int64 definition_id = PG_GETARG_INT64(1);
    int node_bits = 0;
    const snowflake::Kind kind = layout_kind(layout_arg(fcinfo, 4));
    check(snowflake::node_bits_for(kind, PG_GETARG_INT32(2), &node_bits), "max_nodes");
    const snowflake::Layout layout{0, node_bits, backfill_nodes_arg(fcinfo, 3), kind};

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
                              registry::within_deadline(
                                  static_cast<int64_t>(atomic_load(&cluster->deadline_ns)), monotonic_ns());
        values[2] = Int32GetDatum(attached ? w.node() : 0);
        nulls[2] = !attached;
        values[3] = CStringGetTextDatum(attached                                      ? "attached"
                                        : found && w.state() == ClaimState::destroyed ? "destroyed"
                                                                                      : "detached");
    } else {
        // No cluster: idgen.node_id or the Citus group, never an error (-1: none).
        const int32_t node = node_id_source == kNodeIdFromCitus ? citus_group_node_if_any() : node_id;
        const bool attached = shared != nullptr && snowflake::node_fits(layout, node);
        values[2] = Int32GetDatum(node);
        nulls[2] = node < 0;
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

// () -> integer: this node's Citus group where its node id is the group (idgen.node_id_source =
// 'citus') and the cluster knows it; NULL otherwise. 0 is the coordinator, whose snowflake_create
// and snowflake_drop reach every worker.
Datum idgen_citus_group(PG_FUNCTION_ARGS) {
    if (node_id_source != kNodeIdFromCitus) PG_RETURN_NULL();
    const int32_t group = citus_group_node_if_any();
    if (group < 0) PG_RETURN_NULL();
    PG_RETURN_INT32(group);
}
