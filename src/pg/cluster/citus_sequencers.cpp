// A worker taking a sequencer's definition from its Citus coordinator (citus_sequencers.hpp).
#include "pg/cluster/citus_sequencers.hpp"

#include "pg/boundary/settings.hpp"
#include "pg/cluster/citus_group.hpp"

extern "C" {
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "miscadmin.h"
}

namespace idgen::pg {

// The SQL function idgen_internal._citus_fetch_sequencer asks the coordinator through Citus (a
// connection of its own, so it sees the coordinator's committed definitions) and runs
// snowflake_create here with what it read: the same definition, or none. Not where no write may
// start (parallel mode, a read-only transaction, a standby), nor under a schema older than the
// function (ALTER EXTENSION idgen UPDATE not yet run): the lookup's 42704 then, as without Citus.
//
// Only the function's owner may run it: a role that could would make the owner take definitions
// on demand, past the REVOKE on snowflake_create. So this calls it as its owner, for whichever role
// draws from a sequencer the worker lacks (SECURITY_LOCAL_USERID_CHANGE, as PostgreSQL's own
// maintenance commands switch roles; an error inside gives the role back with the transaction or
// subtransaction it aborts).
bool fetch_citus_sequencer(const text *name) {
    if (node_id_source != kNodeIdFromCitus || IsInParallelMode() || XactReadOnly || RecoveryInProgress() ||
        citus_group_node_if_any() <= 0)
        return false;
    SPI_connect();
    if (SPI_execute("SELECT p.proowner FROM pg_catalog.pg_proc p WHERE p.oid OPERATOR(pg_catalog.=) "
                    "pg_catalog.to_regprocedure('idgen_internal._citus_fetch_sequencer(pg_catalog.text)')",
                    true, 1) != SPI_OK_SELECT)
        elog(ERROR, "idgen: looking for _citus_fetch_sequencer failed");
    bool isnull = false, fetched = false;
    if (SPI_processed == 1) {
        Oid owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
        Oid caller;
        int context;
        GetUserIdAndSecContext(&caller, &context);
        SetUserIdAndSecContext(owner, context | SECURITY_LOCAL_USERID_CHANGE);
        Oid argtypes[1] = {TEXTOID};
        Datum values[1] = {PointerGetDatum(name)};
        if (SPI_execute_with_args("SELECT idgen_internal._citus_fetch_sequencer($1)", 1, argtypes, values,
                                  nullptr, false, 1) != SPI_OK_SELECT ||
            SPI_processed != 1)
            elog(ERROR, "idgen: asking the Citus coordinator for a Snowflake sequencer failed");
        fetched =
            DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)) && !isnull;
        SetUserIdAndSecContext(caller, context);
    }
    SPI_finish();
    return fetched;
}

}  // namespace idgen::pg
