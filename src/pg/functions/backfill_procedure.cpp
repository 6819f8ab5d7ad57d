// What idgen_backfill (schema/idgen.sql, a PL/pgSQL procedure) cannot learn in PL/pgSQL: whether
// its CALL runs inside a transaction block, where the COMMIT after each batch would be refused.
// The procedure asks before its first batch, so that such a call is refused saying what to do
// rather than with PostgreSQL's bare "invalid transaction termination".
#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include "access/xact.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(idgen_in_transaction_block);
}

// () -> boolean: BEGIN ... COMMIT around the call, or a multi-statement query (an implicit block).
extern "C" Datum idgen_in_transaction_block(PG_FUNCTION_ARGS) {
    PG_RETURN_BOOL(IsTransactionBlock());
}
