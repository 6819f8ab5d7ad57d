// Reading a Citus node's group as its node id (citus_group.hpp says why and when).
#include "pg/cluster/citus_group.hpp"

#include "core/layouts/snowflake.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/relcache_watch.hpp"
#include "pg/boundary/wall_clock.hpp"

extern "C" {
#include "executor/spi.h"
#include "utils/inval.h"
}

namespace idgen::pg {

// This backend's reading: valid while no invalidation of Citus's metadata tables (Citus sends
// one for each change of pg_dist_local_group and pg_dist_node) or of every relation came after
// it, and, on a worker, for kAskedAgainNs. `invalidations` counts them, so that one arriving
// while the tables are read leaves the reading stale. A worker that the coordinator disabled
// gets no invalidation: Citus sends metadata only to the active nodes, so the worker's own
// pg_dist_node still says it is active. So a worker also asks the coordinator, at each reading,
// whether its group is an active primary there, and reads again after kAskedAgainNs; a
// coordinator that cannot be asked (down, or Citus too old to ask) leaves the worker's own
// metadata to decide, so that a worker goes on generating while its coordinator is away.
static uint64 invalidations = 1;
static uint64 known_at = 0;         // invalidations when the reading was taken (0: none)
static int64_t known_until_ns = 0;  // monotonic; on a worker, when the coordinator is asked again
static int32_t known_node = -1;
constexpr int64_t kAskedAgainNs = 10 * int64_t{1000000000};
static Oid metadata[2] = {InvalidOid, InvalidOid};  // pg_dist_local_group, pg_dist_node

static void on_relcache_invalidation(Oid relid) {
    if (relid == InvalidOid || relid == metadata[0] || relid == metadata[1]) invalidations++;
}

void register_citus_group_callback() {
    watch_relcache(on_relcache_invalidation);
}

static bool spi_row(const char *query) {
    return SPI_execute(query, true, 1) == SPI_OK_SELECT && SPI_processed == 1;
}

static Oid oid_at(int column) {
    bool isnull = false;
    const Datum d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, column, &isnull);
    return isnull ? InvalidOid : DatumGetObjectId(d);
}

// Whether the coordinator answers that `group` is not one of its active primary nodes (disabled,
// removed, or a secondary); false where it cannot be asked. Within the caller's SPI connection.
static bool coordinator_says_inactive(int64_t group) {
    const char *query = psprintf(
        "SELECT c.success AND c.result OPERATOR(pg_catalog.<>) 't' FROM "
        "pg_catalog.run_command_on_coordinator("
        "'SELECT pg_catalog.bool_or(isactive AND noderole OPERATOR(pg_catalog.=) ''primary'') IS TRUE "
        "FROM pg_catalog.pg_dist_node WHERE groupid OPERATOR(pg_catalog.=) %lld') c",
        static_cast<long long>(group));
    if (!spi_row("SELECT pg_catalog.to_regproc('pg_catalog.run_command_on_coordinator') IS NOT NULL"))
        return false;
    bool isnull = false;
    if (!DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull))) return false;
    if (!spi_row(query)) return false;
    const Datum inactive = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
    return !isnull && DatumGetBool(inactive);
}

// The group and whether the cluster knows it; false where this database has no Citus.
static bool read_group(int64_t *group, bool *member) {
    SPI_connect();
    if (!spi_row("SELECT pg_catalog.to_regclass('pg_catalog.pg_dist_local_group')::oid, "
                 "pg_catalog.to_regclass('pg_catalog.pg_dist_node')::oid")) {
        SPI_finish();
        return false;
    }
    metadata[0] = oid_at(1);
    metadata[1] = oid_at(2);
    const bool has_citus = OidIsValid(metadata[0]) && OidIsValid(metadata[1]) &&
                           spi_row(
                               "SELECT l.groupid::int8, EXISTS (SELECT FROM pg_catalog.pg_dist_node n "
                               "WHERE n.groupid OPERATOR(pg_catalog.=) l.groupid AND n.isactive "
                               "AND n.noderole OPERATOR(pg_catalog.=) 'primary') "
                               "FROM pg_catalog.pg_dist_local_group l");
    if (has_citus) {
        bool isnull = false;
        *group = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
        *member = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
        if (*member && *group > 0 && coordinator_says_inactive(*group)) *member = false;
    }
    SPI_finish();
    return has_citus;
}

enum class Group { node, no_citus, not_added, too_large };

// This node's group, read again when Citus's metadata changed since the last reading.
static Group group_of(int64_t *group) {
    if (known_at == invalidations && (known_node == 0 || monotonic_ns() < known_until_ns)) {
        *group = known_node;
        return Group::node;
    }
    const uint64 taken_at = invalidations;
    const int64_t taken_ns = monotonic_ns();
    bool member = false;
    if (!read_group(group, &member)) return Group::no_citus;
    if (!member) return Group::not_added;
    if (*group < 0 || *group >= snowflake::kMaxNodes) return Group::too_large;
    known_node = static_cast<int32_t>(*group);
    known_at = taken_at;
    known_until_ns = taken_ns + kAskedAgainNs;
    return Group::node;
}

int32_t citus_group_node(const char *what) {
    int64_t group = -1;
    const Group g = group_of(&group);
    if (g == Group::node) return static_cast<int32_t>(group);
    if (g == Group::no_citus)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("%s: idgen.node_id_source is 'citus', but this database has no Citus", what),
                 errhint("Generate in the database where Citus is created, or set idgen.node_id instead.")));
    if (g == Group::not_added)
        ereport(
            ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("%s: this server is not an active node of a Citus cluster (group %lld is not "
                    "an active primary in pg_dist_node)",
                    what, static_cast<long long>(group)),
             errdetail("Its node id is its Citus group, which it has once the coordinator added it "
                       "(a server not yet added reads the coordinator's group, 0), and while the "
                       "coordinator keeps it active (a disabled node refuses)."),
             errhint("On the coordinator: SELECT citus_add_node(...) for a worker (citus_activate_node(...) "
                     "for a disabled one), SELECT citus_set_coordinator_host(...) for the coordinator "
                     "itself.")));
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("%s: this node's Citus group %lld is past the largest node id, %d", what,
                           static_cast<long long>(group), snowflake::kMaxNodes - 1)));
    pg_unreachable();
}

int32_t citus_group_node_if_any() {
    int64_t group = -1;
    return group_of(&group) == Group::node ? static_cast<int32_t>(group) : -1;
}

}  // namespace idgen::pg
