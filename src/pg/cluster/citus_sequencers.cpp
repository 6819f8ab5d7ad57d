// A worker taking a sequencer's definition from its Citus coordinator (citus_sequencers.hpp).
#include "pg/cluster/citus_sequencers.hpp"

#include "pg/boundary/settings.hpp"
#include "pg/cluster/citus_group.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
}

namespace idgen::pg {

// The SQL function _citus_fetch_sequencer asks the coordinator through Citus (a connection of its
// own, so it sees the coordinator's committed definitions) and runs snowflake_create here with
// what it read: the same definition, or none.
bool fetch_citus_sequencer(Oid schema, const text *name) {
    if (node_id_source != kNodeIdFromCitus || IsInParallelMode() || citus_group_node_if_any() <= 0)
        return false;
    const char *query =
        psprintf("SELECT %s._citus_fetch_sequencer($1)", quote_identifier(get_namespace_name(schema)));
    Oid argtypes[1] = {TEXTOID};
    Datum values[1] = {PointerGetDatum(name)};
    SPI_connect();
    if (SPI_execute_with_args(query, 1, argtypes, values, nullptr, false, 1) != SPI_OK_SELECT ||
        SPI_processed != 1)
        elog(ERROR, "idgen: asking the Citus coordinator for a Snowflake sequencer failed");
    bool isnull = false;
    const bool fetched =
        DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
    SPI_finish();
    return fetched && !isnull;
}

}  // namespace idgen::pg
