// Readings of other projects' UUID functions (uuid_readings.hpp).
#include "core/layouts/uuid_readings.hpp"

#include "core/layouts/uuid_v1.hpp"
#include "core/layouts/uuid_v7.hpp"

namespace idgen::uuid_readings {

bool embedded_unix_micros(const Uuid &u, int64_t *unix_micros) noexcept {
    const std::optional<int> version = uuid_version(u);
    if (version == 1) {
        uuid_v1::Fields f;
        if (!uuid_v1::decode(u, &f)) return false;
        *unix_micros = uuid_v1::unix_micros_from_ticks(f.ticks);
        return true;
    }
    if (version == 7) {
        *unix_micros = unix_ms_field(u) * 1000;
        return true;
    }
    return false;
}

int64_t unix_ms_field(const Uuid &u) noexcept {
    uint64_t ms = 0;
    for (int i = 0; i < 6; i++) ms = ms << 8 | u.bytes[i];
    return static_cast<int64_t>(ms);
}

Status whole_ms_v7(int64_t unix_micros, Uuid *out) noexcept {
    uuid_v7::Time t;
    const Status in_range = uuid_v7::time_from_unix_micros(unix_micros, &t);
    if (!in_range.ok()) return in_range;
    uuid_v7::encode(uuid_v7::Time{t.unix_ms, 0}, 0, out);
    return Status::success();
}

}  // namespace idgen::uuid_readings
