// A worker taking a sequencer's definition from its Citus coordinator (citus_sequencers.hpp).
#include "pg/cluster/citus_sequencers.hpp"

#include "pg/boundary/settings.hpp"
#include "pg/cluster/citus_group.hpp"

extern "C" {
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
}

namespace idgen::pg {

// The SQL function _citus_fetch_sequencer asks the coordinator through Citus (a connection of its
// own, so it sees the coordinator's committed definitions) and runs snowflake_create here with
// what it read: the same definition, or none. Not where no write may start (parallel mode, a
// read-only transaction, a standby), nor under a schema older than the function (ALTER EXTENSION
// idgen UPDATE not yet run): the lookup's 42704 then, as without Citus.
bool fetch_citus_sequencer(Oid schema, const text *name) {
    if (node_id_source != kNodeIdFromCitus || IsInParallelMode() || XactReadOnly || RecoveryInProgress() ||
        citus_group_node_if_any() <= 0)
        return false;
    const char *qualified = quote_identifier(get_namespace_name(schema));
    const char *query =
        psprintf("SELECT pg_catalog.to_regprocedure(%s) IS NOT NULL",
                 quote_literal_cstr(psprintf("%s._citus_fetch_sequencer(pg_catalog.text)", qualified)));
    SPI_connect();
    bool isnull = false, fetched = false;
    if (SPI_execute(query, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
        elog(ERROR, "idgen: looking for _citus_fetch_sequencer failed");
    if (DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull))) {
        Oid argtypes[1] = {TEXTOID};
        Datum values[1] = {PointerGetDatum(name)};
        if (SPI_execute_with_args(psprintf("SELECT %s._citus_fetch_sequencer($1)", qualified), 1, argtypes,
                                  values, nullptr, false, 1) != SPI_OK_SELECT ||
            SPI_processed != 1)
            elog(ERROR, "idgen: asking the Citus coordinator for a Snowflake sequencer failed");
        fetched =
            DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)) && !isnull;
    }
    SPI_finish();
    return fetched;
}

}  // namespace idgen::pg
