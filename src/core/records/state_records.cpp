// Reading and describing the resource manager's records (state_records.hpp says why here).
#include "core/records/state_records.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace idgen::records {

HorizonRecord horizon_record(int64_t horizon_unix_us) {
    return HorizonRecord{horizon_unix_us};
}

LeaseRecord lease_record(const backfill::LeaseSpace &space, const backfill::LeaseState &state) {
    return LeaseRecord{
        static_cast<uint32_t>(space.kind), space.database, space.key, state.next, state.bound, state.step};
}

template <typename Layout>
static Layout copy_of(const void *data) {
    Layout r;
    memcpy(&r, data, sizeof r);  // WAL data has no alignment promise
    return r;
}

static void read_space(uint32_t kind, uint32_t database, uint64_t key, StateRecord *out) {
    out->space = backfill::LeaseSpace{static_cast<backfill::LeaseKind>(kind), database, key};
}

Read read_record(uint8_t info, const void *data, size_t size, StateRecord *out) {
    *out = StateRecord{};
    out->info = info;
    if (info == kHorizonInfo) {
        if (size != sizeof(HorizonRecord)) return Read::unknown_length;
        out->horizon_unix_us = copy_of<HorizonRecord>(data).horizon_unix_us;
        return Read::ok;
    }
    if (info != kLeaseInfo) return Read::unknown_type;
    if (size == sizeof(LeaseRecord)) {
        const LeaseRecord r = copy_of<LeaseRecord>(data);
        read_space(r.kind, r.database, r.key, out);
        out->state = backfill::LeaseState{r.next, r.bound, r.step};
        return Read::ok;
    }
    if (size == sizeof(LeaseRecordV1)) {
        const LeaseRecordV1 r = copy_of<LeaseRecordV1>(data);
        read_space(r.kind, r.database, r.key, out);
        out->state = backfill::LeaseState{r.next, 0, 0};
        return Read::ok;
    }
    return Read::unknown_length;
}

const char *record_type_name(uint8_t info) {
    if (info == kHorizonInfo) return "HORIZON";
    if (info == kLeaseInfo) return "LEASE";
    return nullptr;
}

const char *describe_record(uint8_t info, const void *data, size_t size, char *buf, size_t buf_size) {
    StateRecord r;
    switch (read_record(info, data, size, &r)) {
        case Read::unknown_type:
            snprintf(buf, buf_size, "unknown record type 0x%02x (%zu bytes)", info, size);
            return buf;
        case Read::unknown_length:
            snprintf(buf, buf_size, "%s record of unknown length %zu", record_type_name(info), size);
            return buf;
        case Read::ok:
            break;
    }
    if (info == kHorizonInfo)
        snprintf(buf, buf_size, "horizon %" PRId64 " us", r.horizon_unix_us);
    else
        snprintf(buf, buf_size, "lease space %u/%u/%" PRIu64 " next %" PRIu64 " bound %u step %u",
                 static_cast<unsigned>(r.space.kind), r.space.database, r.space.key, r.state.next,
                 r.state.bound, r.state.step);
    return buf;
}

}  // namespace idgen::records
