// Reading a Citus node's group as its node id (citus_group.hpp says why and when).
#include "pg/cluster/citus_group.hpp"

#include "core/layouts/snowflake.hpp"

#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include "executor/spi.h"
#include "utils/inval.h"
}

namespace idgen::pg {

// This backend's reading: valid while no invalidation of Citus's metadata tables (Citus sends
// one for each change of pg_dist_local_group and pg_dist_node) or of every relation came after
// it. `invalidations` counts them, so that one arriving while the tables are read leaves the
// reading stale.
static uint64 invalidations = 1;
static uint64 known_at = 0;  // invalidations when the reading was taken (0: none)
static int32_t known_node = -1;
static Oid metadata[2] = {InvalidOid, InvalidOid};  // pg_dist_local_group, pg_dist_node

static void on_relcache_invalidation(Datum, Oid relid) {
    if (relid == InvalidOid || relid == metadata[0] || relid == metadata[1]) invalidations++;
}

void register_citus_group_callback() {
    CacheRegisterRelcacheCallback(on_relcache_invalidation, 0);
}

static bool spi_row(const char *query) {
    return SPI_execute(query, true, 1) == SPI_OK_SELECT && SPI_processed == 1;
}

static Oid oid_at(int column) {
    bool isnull = false;
    const Datum d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, column, &isnull);
    return isnull ? InvalidOid : DatumGetObjectId(d);
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
    }
    SPI_finish();
    return has_citus;
}

enum class Group { node, no_citus, not_added, too_large };

// This node's group, read again when Citus's metadata changed since the last reading.
static Group group_of(int64_t *group) {
    if (known_at == invalidations) {
        *group = known_node;
        return Group::node;
    }
    const uint64 taken_at = invalidations;
    bool member = false;
    if (!read_group(group, &member)) return Group::no_citus;
    if (!member) return Group::not_added;
    if (*group < 0 || *group >= snowflake::kMaxNodes) return Group::too_large;
    known_node = static_cast<int32_t>(*group);
    known_at = taken_at;
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
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("%s: this server is not yet a node of a Citus cluster (group %lld is not in "
                        "pg_dist_node)",
                        what, static_cast<long long>(group)),
                 errdetail("Its node id is its Citus group, which it has once the coordinator added it "
                           "(a server not yet added reads the coordinator's group, 0)."),
                 errhint("On the coordinator: SELECT citus_add_node(...) for a worker, SELECT "
                         "citus_set_coordinator_host(...) for the coordinator itself.")));
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
