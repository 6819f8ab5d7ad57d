// The guard rule of move_guard.hpp.
#include "core/backfill/move_guard.hpp"

namespace idgen::backfill {

static bool settled(GuardState state) noexcept {
    return state == GuardState::forgotten || state == GuardState::carried;
}

Guard current_guard(const Guard &stored, bool subscription_enabled) noexcept {
    if (stored.state == GuardState::carried && subscription_enabled)
        return Guard{GuardState::awaiting, stored.publisher_node};
    return stored;
}

bool guard_blocks(const Guard &guard, LeaseKind kind, int32_t own_node) noexcept {
    if (settled(guard.state) || guard.state == GuardState::publisher_without_idgen) return false;
    const bool apart = own_node >= 0 && guard.publisher_node >= 0 && guard.publisher_node != own_node;
    return !(apart && carries_server_node(kind));
}

bool drop_takes_over(const Guard &guard, bool brought_rows) noexcept {
    return brought_rows && !settled(guard.state);
}

bool same_node(int64_t publisher_node, int32_t own_node) noexcept {
    return own_node >= 0 && publisher_node == own_node;
}

bool server_wide(LeaseKind kind) noexcept {
    return kind != LeaseKind::snowflake;  // a sequencer's reserved node ids are one database's
}

}  // namespace idgen::backfill
