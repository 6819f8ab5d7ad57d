// snowflake_at(name, ts): retrospective Snowflake ids on the node ids a sequencer reserves for
// backfill, from leased namespaces (one owner per sequencer; in cluster mode, windows numbered
// by the registry; on Citus, each group's own window).
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

// On Citus every node backfills its own shards at once (run_command_on_shards), so no one server
// owns a sequencer's backfill: each node takes its own Citus group's window of every reserved node
// id (snowflake::group_backfill_namespace) and leases the reserved node ids from its own counter,
// the lease table every backfill uses, made durable through the cover's door before an id leaves:
// a crash, a promoted standby or a restore goes on above what the node leased, as for any server.
// Two nodes never hold one group (Citus gives none out twice; a worker's standby promoted in its
// place continues its lease table through WAL), so no two nodes make the same id. (A group handed
// to a fresh server would start its windows afresh: the docs say a group moves only to a standby.)
static int64_t citus_snowflake_at(SharedState *shared, const CachedSequencer *site, const LeaseSpace &space,
                                  int64_t us) {
    const snowflake::Layout layout = site->def.layout;
    const int32_t group = citus_group_node("snowflake_at()");
    uint64_t v = 0;
    if (!snowflake::group_backfill_namespace(layout, static_cast<uint64_t>(group), 0, &v))
        ereport(
            ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("snowflake_at(): Snowflake sequencer \"%s\" shares its backfill among Citus groups 0 to "
                    "%llu; this node's group is %d",
                    site->def.name,
                    static_cast<unsigned long long>(snowflake::cluster_backfill_windows(layout) - 1), group),
             errdetail("Each group takes its own share of the counter of every node id reserved for "
                       "backfill, and this sequencer's counter has no more shares."),
             errhint("Run this backfill on a node of a lower group, or with a sequencer of fewer "
                     "max_nodes (a wider counter).")));
    const BackfillDraw d = draw_backfill(shared, space, snowflake::cluster_backfill_per_namespace(layout),
                                         static_cast<uint64_t>(layout.backfill_nodes), 1,
                                         snowflake::backfill_key(layout, us), "snowflake_at()");
    (void)snowflake::group_backfill_namespace(layout, static_cast<uint64_t>(group), d.ns, &v);
    uint64_t lease = 0, offset = 0;
    snowflake::cluster_backfill_position(layout, v, d.offset, &lease, &offset);
    int64_t id = 0;
    check(snowflake::at(layout, us, lease, offset, &id));
    return id;
}

// The errors snowflake_at raises before it draws: a time outside the layout, a sequencer that
// reserves no node ids for backfill, or a name defined before otherwise.
static void refuse_unless_backfills(const SequencerDefinition &def, int64_t us) {
    int64_t id = 0;
    const Status valid = snowflake::at(def.layout, us, 0, 0, &id);  // the time and the reserved nodes
    if (valid.code == Errc::not_attached)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("Snowflake sequencer \"%s\" reserves no node ids for backfill", def.name),
                 errhint("Create a sequencer with backfill_nodes, e.g. snowflake_create('%s_backfill', "
                         "max_nodes => 128, backfill_nodes => 16).",
                         def.name)));
    check(valid);
    // Retrospective ids fall at past times, where the name's earlier definitions issued ids: under
    // the same definition they lie on other node ids or in earlier namespaces; under another
    // epoch, node count or layout the same bits can be an earlier id.
    if (def.redefined)
        ereport(
            ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("snowflake_at(): Snowflake sequencer \"%s\" was defined before with another epoch, node "
                    "count or layout",
                    def.name),
             errdetail("Retrospective ids of this definition could repeat ids of the earlier one."),
             errhint("Backfill through a sequencer of a new name.")));
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
    refuse_unless_backfills(site->def, us);
    int64_t id = 0;
    // One lease space per sequencer name in this database: a sequencer dropped and created
    // again the same goes on with the namespaces after the old one's.
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
                                             snowflake::backfill_key(layout, us), "snowflake_at()");
        uint64_t lease = 0, offset = 0;
        snowflake::cluster_backfill_position(layout, d.ns, d.offset, &lease, &offset);
        check(snowflake::at(layout, us, lease, offset, &id));
        PG_RETURN_INT64(id);
    }
    if (node_id_source == kNodeIdFromCitus) PG_RETURN_INT64(citus_snowflake_at(shared, site, space, us));
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
                                         snowflake::backfill_key(layout, us), "snowflake_at()");
    check(snowflake::at(layout, us, d.ns, d.offset, &id));
    PG_RETURN_INT64(id);
}
