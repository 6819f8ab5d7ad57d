// Conversions between PostgreSQL's representations and the plain values the core takes:
// timestamptz (microseconds since 2000-01-01, with ±infinity) and Unix microseconds,
// macaddr and a 48-bit integer, pg_uuid_t and idgen::Uuid.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#include "core/base/uuid.hpp"

#include "pg/boundary/postgres_api.hpp"

namespace idgen::pg {

constexpr int64_t kPostgresEpochUnixMicros =
    int64_t{POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE} * SECS_PER_DAY * USECS_PER_SEC;

// ±infinity, and the last years of PostgreSQL's range whose shift would overflow, become the
// int64 extremes, which every core range check rejects.
inline int64_t unix_micros_from_timestamptz(TimestampTz ts) {
    if (TIMESTAMP_IS_NOBEGIN(ts)) return std::numeric_limits<int64_t>::min();
    if (TIMESTAMP_IS_NOEND(ts) || ts > std::numeric_limits<int64_t>::max() - kPostgresEpochUnixMicros)
        return std::numeric_limits<int64_t>::max();
    return ts + kPostgresEpochUnixMicros;
}

// Only for times the core produced from a valid range, so no overflow is possible (a Snowflake
// time under an explicit epoch is checked by its decoder).
inline TimestampTz timestamptz_from_unix_micros(int64_t unix_micros) {
    return unix_micros - kPostgresEpochUnixMicros;
}

inline uint64_t node_from_macaddr(const macaddr *m) {
    return uint64_t{m->a} << 40 | uint64_t{m->b} << 32 | uint64_t{m->c} << 24 | uint64_t{m->d} << 16 |
           uint64_t{m->e} << 8 | uint64_t{m->f};
}

inline macaddr *macaddr_from_node(uint64_t node) {
    macaddr *m = static_cast<macaddr *>(palloc(sizeof(macaddr)));
    m->a = static_cast<unsigned char>(node >> 40);
    m->b = static_cast<unsigned char>(node >> 32);
    m->c = static_cast<unsigned char>(node >> 24);
    m->d = static_cast<unsigned char>(node >> 16);
    m->e = static_cast<unsigned char>(node >> 8);
    m->f = static_cast<unsigned char>(node);
    return m;
}

inline Uuid uuid_from_datum(const pg_uuid_t *u) {
    Uuid out;
    std::memcpy(out.bytes, u->data, sizeof out.bytes);
    return out;
}

inline pg_uuid_t *datum_from_uuid(const Uuid &u) {
    pg_uuid_t *out = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
    std::memcpy(out->data, u.bytes, sizeof u.bytes);
    return out;
}

}  // namespace idgen::pg
