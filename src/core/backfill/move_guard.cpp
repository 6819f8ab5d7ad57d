// The guard rule of move_guard.hpp.
#include "core/backfill/move_guard.hpp"

#include <cstdlib>

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

static const char *const kStateNames[] = {"awaiting", "carried", "forgotten", "publisher-without-idgen"};

std::string guard_text(const Guard &guard) {
    return std::string(kStateNames[static_cast<int32_t>(guard.state)]) + " " +
           std::to_string(guard.publisher_node);
}

bool parse_guard_text(const std::string &text, Guard *guard) {
    for (int32_t s = 0; s < 4; s++) {
        const std::string name = std::string(kStateNames[s]) + " ";
        if (text.compare(0, name.size(), name) != 0) continue;
        const std::string node = text.substr(name.size());
        char *end = nullptr;
        const long long parsed = std::strtoll(node.c_str(), &end, 10);
        if (node.empty() || *end != '\0' || parsed < -1 || parsed > INT32_MAX ||
            std::to_string(parsed) != node)
            return false;
        *guard = Guard{static_cast<GuardState>(s), parsed};
        return true;
    }
    return false;
}

bool server_wide(LeaseKind kind) noexcept {
    return kind != LeaseKind::snowflake;  // a sequencer's reserved node ids are one database's
}

}  // namespace idgen::backfill
