// The guard rule of move_guard.hpp.
#include "core/backfill/move_guard.hpp"

namespace idgen::backfill {

static bool carries_own_node(LeaseKind kind) noexcept {
    return kind == LeaseKind::uuid_auto || kind == LeaseKind::uuid_v7;
}

bool guard_blocks(const Guard &guard, LeaseKind kind, int32_t own_node) noexcept {
    if (guard.state == GuardState::forgotten || guard.state == GuardState::carried) return false;
    const bool apart = own_node >= 0 && guard.publisher_node >= 0 && guard.publisher_node != own_node;
    return !(apart && carries_own_node(kind));
}

bool server_wide(LeaseKind kind) noexcept {
    return kind != LeaseKind::snowflake;  // a sequencer's reserved node ids are one database's
}

}  // namespace idgen::backfill
