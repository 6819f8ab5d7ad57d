/*
 * bench/noop.c: the benchmark's yardstick. Three C functions that do nothing but return a
 * value, so bench/run can show what a bare fmgr call costs next to each idgen function
 * (same argument list, same return width). Built only for the benchmark, never installed.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/uuid.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(bench_noop_int8);
PG_FUNCTION_INFO_V1(bench_noop_uuid);
PG_FUNCTION_INFO_V1(bench_noop_text);

/* Any argument list; returns the 8-byte by-value datum 0 (int8, timestamptz, int4, int2). */
Datum
bench_noop_int8(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(0);
}

/* Any argument list; returns a palloc'd all-zero pg_uuid_t (also read as a zero macaddr). */
Datum
bench_noop_uuid(PG_FUNCTION_ARGS)
{
	PG_RETURN_UUID_P((pg_uuid_t *) palloc0(sizeof(pg_uuid_t)));
}

/* Any argument list; returns a palloc'd empty text (the twin of the decoders returning text). */
Datum
bench_noop_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(""));
}
