// snowflake_at(name, ts): retrospective Snowflake ids on the node ids a sequencer reserves for
// backfill, from leased namespaces (one owner per sequencer; in cluster mode, windows numbered
// by the registry).
#include "core/layouts/snowflake.hpp"

#include "pg/backfill/backfill_sessions.hpp"
#include "pg/boundary/convert.hpp"
#include "pg/boundary/errors.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/cluster/node_source.hpp"
#include "pg/functions/ready_to_generate.hpp"
#include "pg/functions/sequencer_call_site.hpp"

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_snowflake_at);
}

// (name text, ts timestamptz) -> bigint: a retrospective id whose time field is ts's millisecond,
// on one of the node ids the sequencer reserves for backfill. Not STRICT: a NULL is an error.
Datum idgen_snowflake_at(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("snowflake_at: %s must not be NULL", PG_ARGISNULL(0) ? "name" : "ts")));
    SharedState *shared = ready_to_generate("snowflake_at()");
    const text *name = PG_GETARG_TEXT_PP(0);
    CachedSequencer *site = sequencer_of(fcinfo, name);
    const snowflake::Layout layout = site->def.layout;
    const int64_t us = unix_micros_from_timestamptz(PG_GETARG_TIMESTAMPTZ(1));
    int64_t id = 0;
    const Status valid = snowflake::at(layout, us, 0, 0, &id);  // the time and the reserved nodes
    if (valid.code == Errc::not_attached)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("Snowflake sequencer \"%s\" reserves no node ids for backfill", site->def.name),
                 errhint("Create a sequencer with backfill_nodes, e.g. snowflake_create('%s_backfill', "
                         "max_nodes => 128, backfill_nodes => 16).",
                         site->def.name)));
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
    const int32_t own_node = server_node("snowflake_at()").node;
    if (site->def.backfill_owner >= 0 && site->def.backfill_owner != own_node)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("snowflake_at(): the backfill of Snowflake sequencer \"%s\" belongs to the server "
                        "with node id %d",
                        site->def.name, site->def.backfill_owner),
                 errdetail("This server's idgen.node_id is %d. Its reserved node ids are leased from one "
                           "server's counter, so only one server may backfill a sequencer.",
                           own_node),
                 errhint("Run the backfill there; or, once no other server backfills it, move it: "
                         "UPDATE snowflake_definitions SET backfill_owner = %d WHERE name = '%s'.",
                         own_node, site->def.name)));
    const BackfillDraw d = draw_backfill(shared, space, snowflake::backfill_per_namespace(layout),
                                         static_cast<uint64_t>(layout.backfill_nodes), 1,
                                         snowflake::backfill_key(us), "snowflake_at()");
    check(snowflake::at(layout, us, d.ns, d.offset, &id));
    PG_RETURN_INT64(id);
}
