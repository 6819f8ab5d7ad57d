// Groupon's locality UUIDs: locality_uuid() and locality_uuid(sequential), one server-wide
// position per id from shared memory, and the decoders of Groupon's layout.
#include "core/generators/locality_clock.hpp"
#include "core/layouts/locality_uuid.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/functions/generate.hpp"
#include "pg/functions/ready_to_generate.hpp"

extern "C" {
#include "common/md5.h"
}

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_locality_uuid);
PG_FUNCTION_INFO_V1(idgen_locality_uuid_mode);
PG_FUNCTION_INFO_V1(idgen_locality_uuid_timestamp);
PG_FUNCTION_INFO_V1(idgen_locality_uuid_pid);
PG_FUNCTION_INFO_V1(idgen_locality_uuid_mac);
PG_FUNCTION_INFO_V1(idgen_locality_uuid_counter);
}

// The sequential mode's starting counter for the ten-minute window of unix_ms, computed once
// per window in each backend.
static uint32_t sequential_start(int64_t unix_ms) {
    static int64_t cached_window = -1;
    static uint32_t cached_start = 0;
    const int64_t window = locality::sequential_seed_window(unix_ms);
    if (window != cached_window) {
        char text[12];
        locality::sequential_seed_text(unix_ms, text);
        uint8_t digest[16];
        const char *errstr = nullptr;
        if (!pg_md5_binary(text, strlen(text), digest, &errstr))
            ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("idgen: MD5 failed: %s", errstr)));
        cached_start = locality::sequential_start(digest);
        cached_window = window;
    }
    return cached_start;
}

static Datum generate(bool sequential) {
    SharedState *shared = ready_to_generate("locality_uuid()");
    LiveGenerators *live = &shared->live;
    static locality::SessionRun session;
    const locality::Tick t = draw_until_issued(
        shared, Generator::locality_uuid, "locality_uuid()", [&](int64_t now_ns, Status *error) {
            return locality::next(&live->locality, now_ns / 1000000, max_lead_ms, error,
                                  ordered_run(shared, &session.run, now_ns) != nullptr ? &session : nullptr);
        });
    const locality::Fields fields{sequential ? sequential_start(t.unix_ms) + static_cast<uint32_t>(t.sequence)
                                             : locality::variable_counter(t.sequence),
                                  static_cast<uint32_t>(MyProcPid), live->locality_mac, t.unix_ms};
    Uuid out;
    check(locality::encode(sequential ? locality::Mode::sequential : locality::Mode::variable, fields, &out));
    PG_RETURN_UUID_P(datum_from_uuid(out));
}

Datum idgen_locality_uuid(PG_FUNCTION_ARGS) {
    return generate(locality_mode == kLocalitySequential);
}

Datum idgen_locality_uuid_mode(PG_FUNCTION_ARGS) {
    return generate(PG_GETARG_BOOL(0));
}

static locality::Decoded decode_arg(FunctionCallInfo fcinfo) {
    locality::Decoded d{};
    check(locality::decode(uuid_from_datum(PG_GETARG_UUID_P(0)), &d));
    return d;
}

Datum idgen_locality_uuid_timestamp(PG_FUNCTION_ARGS) {
    PG_RETURN_TIMESTAMPTZ(timestamptz_from_unix_micros(decode_arg(fcinfo).unix_ms * 1000));
}

Datum idgen_locality_uuid_pid(PG_FUNCTION_ARGS) {
    PG_RETURN_INT32(static_cast<int32>(decode_arg(fcinfo).pid));
}

Datum idgen_locality_uuid_mac(PG_FUNCTION_ARGS) {
    PG_RETURN_TEXT_P(cstring_to_text(psprintf("%07x", decode_arg(fcinfo).mac)));
}

Datum idgen_locality_uuid_counter(PG_FUNCTION_ARGS) {
    PG_RETURN_INT64(static_cast<int64>(decode_arg(fcinfo).variable_counter));
}
