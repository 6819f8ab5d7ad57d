// PostgreSQL 18's and pg_uuidv7's names for version-7 UUIDs, so that code written for them runs on
// idgen unchanged (PostgreSQL 18's only where the server has none of its own: the SQL script
// creates them below 18). What they make is idgen's: uuidv7() and uuid_generate_v7() are
// uuid_v7() (the SQL script points them at its C function), and a shifted or given time gets
// uuid_v7_at's retrospective UUID, unique, where PostgreSQL 18 and pg_uuidv7 draw random bits. What
// they read is what PostgreSQL 18 and pg_uuidv7 read (core/layouts/uuid_readings.hpp), and their
// errors are PostgreSQL 18's.
#include "core/layouts/uuid_readings.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/boundary/errors.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/wall_clock.hpp"
#include "pg/functions/uuid_v7_retrospective.hpp"

extern "C" {
#include "datatype/timestamp.h"
}

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_uuidv7_shifted);
PG_FUNCTION_INFO_V1(idgen_uuid_extract_timestamp);
PG_FUNCTION_INFO_V1(idgen_uuid_v7_ms_field);
PG_FUNCTION_INFO_V1(idgen_uuid_time_to_v7);
}

// (shift interval) -> uuid: uuidv7(shift), PostgreSQL 18's checks and errors, then the
// retrospective UUID of now + shift (a live UUID this far from the clock would carry the shared
// clock along).
Datum idgen_uuidv7_shifted(PG_FUNCTION_ARGS) {
    const Interval *shift = PG_GETARG_INTERVAL_P(0);
    if (IDGEN_INTERVAL_NOT_FINITE(shift))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("interval out of range for UUID version 7"),
                        errdetail("UUID version 7 does not support infinite intervals.")));
    const TimestampTz now = timestamptz_from_unix_micros(now_unix_us());
    const TimestampTz ts = DatumGetTimestampTz(
        DirectFunctionCall2(timestamptz_pl_interval, TimestampTzGetDatum(now), PointerGetDatum(shift)));
    const int64_t us = unix_micros_from_timestamptz(ts);
    if (us < 0 || us > uuid_readings::kMaxWholeMsMicros)
        ereport(
            ERROR,
            (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
             errmsg("timestamp out of range for UUID version 7"),
             errdetail("UUID version 7 supports timestamps from 1970-01-01 to approximately year 10889.")));
    PG_RETURN_UUID_P(datum_from_uuid(retrospective_uuid_v7(us, "uuidv7(shift)")));
}

// (u uuid) -> timestamptz: uuid_extract_timestamp, NULL for a UUID without a time.
Datum idgen_uuid_extract_timestamp(PG_FUNCTION_ARGS) {
    int64_t us = 0;
    if (!uuid_readings::embedded_unix_micros(uuid_from_datum(PG_GETARG_UUID_P(0)), &us)) PG_RETURN_NULL();
    PG_RETURN_TIMESTAMPTZ(timestamptz_from_unix_micros(us));
}

// (u uuid) -> timestamptz or timestamp (the same microseconds): uuid_v7_to_timestamptz and
// uuid_v7_to_timestamp, the first 48 bits as milliseconds whatever the UUID.
Datum idgen_uuid_v7_ms_field(PG_FUNCTION_ARGS) {
    const int64_t ms = uuid_readings::unix_ms_field(uuid_from_datum(PG_GETARG_UUID_P(0)));
    PG_RETURN_TIMESTAMPTZ(timestamptz_from_unix_micros(ms * 1000));
}

// (ts timestamptz or timestamp read as UTC, zero boolean) -> uuid: uuid_timestamptz_to_v7 and
// uuid_timestamp_to_v7; with zero, the UUID of the millisecond with nothing after its time,
// otherwise a retrospective UUID of exactly ts.
Datum idgen_uuid_time_to_v7(PG_FUNCTION_ARGS) {
    const int64_t us = unix_micros_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0));
    if (!PG_GETARG_BOOL(1))
        PG_RETURN_UUID_P(datum_from_uuid(retrospective_uuid_v7(us, "uuid_timestamptz_to_v7()")));
    Uuid u;
    check(uuid_readings::whole_ms_v7(us, &u));
    PG_RETURN_UUID_P(datum_from_uuid(u));
}
