// Namespaces and offsets of retrospective version-1 UUIDs, laid out as uuid_v1_backfill.hpp says.
#include "core/backfill/uuid_v1_backfill.hpp"

#include "core/layouts/uuid_v1.hpp"

namespace idgen::uuid_v1::backfill {

bool reserved_node(uint64_t node) noexcept {
    return (node >> 40) == kNodePrefix;
}

Status check_given_node(uint64_t node) noexcept {
    if (reserved_node(node))
        return Status::error(Errc::invalid_parameter,
                             "nodes 03:xx:xx:xx:xx:xx are reserved for the automatic nodes");
    return Status::success();
}

Status check_time(int64_t unix_us) noexcept {
    uint64_t ticks = 0;
    return ticks_from_unix_micros(unix_us, &ticks);
}

uint64_t live_random_node(uint64_t drawn) noexcept {
    constexpr uint64_t kLocalBit = uint64_t{1} << 41;
    return reserved_node(drawn) ? drawn ^ kLocalBit : drawn;
}

static Status make(int64_t unix_us, uint64_t tick, int32_t clock_seq, uint64_t node, Uuid *out) noexcept {
    uint64_t ticks = 0;
    Status s = ticks_from_unix_micros(unix_us, &ticks);
    if (!s.ok()) return s;
    if (ticks + tick > kMaxTicks)
        return Status::error(Errc::timestamp_out_of_range,
                             "the last microsecond of the version-1 time field has no room left");
    return encode(Fields{ticks + tick, clock_seq, node}, out);
}

Status make_auto(int64_t unix_us, int32_t node_id, uint64_t lease, uint64_t offset, Uuid *out) noexcept {
    if (node_id < 0 || node_id >= (1 << kNodeIdBits))
        return Status::error(Errc::not_attached, "node id %d does not fit %d bits", node_id, kNodeIdBits);
    if (lease >= kAutoNamespaces || offset >= kAutoPerNamespace)
        return Status::error(Errc::exhausted, "automatic UUID namespace %llu does not exist",
                             static_cast<unsigned long long>(lease));
    const uint64_t node = kNodePrefix << 40 | static_cast<uint64_t>(node_id) << kLeaseBits | lease;
    return make(unix_us, offset / kClockSeqs, static_cast<int32_t>(offset % kClockSeqs), node, out);
}

Status make_given(int64_t unix_us, uint64_t node, uint64_t lease, uint64_t offset, Uuid *out) noexcept {
    Status s = check_given_node(node);
    if (!s.ok()) return s;
    if (lease >= kGivenNamespaces || offset >= kGivenPerNamespace)
        return Status::error(Errc::exhausted, "clock sequence namespace %llu does not exist",
                             static_cast<unsigned long long>(lease));
    return make(unix_us, offset, static_cast<int32_t>(lease), node, out);
}

}  // namespace idgen::uuid_v1::backfill
