// The arithmetic of a space's durable lease state (lease_spaces.hpp).
#include "core/backfill/lease_spaces.hpp"

namespace idgen::backfill {

void raise_bound(LeaseState *state, uint64_t offset, uint32_t step) noexcept {
    const uint64_t raised = (offset / step + 1) * step;  // one step past the offset
    state->bound = static_cast<uint32_t>(raised > state->bound ? raised : state->bound);
    state->step = step;
}

bool raise_state(LeaseState *state, const LeaseState &to) noexcept {
    if (covers(*state, to)) return false;
    if (to.next > state->next) state->next = to.next;
    if (to.bound > state->bound) state->bound = to.bound;
    if (to.step > state->step) state->step = to.step;
    return true;
}

void from_skipping_mapping(LeaseSpace *space, LeaseState *state) noexcept {
    if (space->kind == LeaseKind::uuid_given_skipping_live) {
        space->kind = LeaseKind::uuid_given;
        state->next++;
    } else if (space->kind == LeaseKind::uuid_auto_skipping_live) {
        space->kind = LeaseKind::uuid_auto;
        if (state->bound != kBoundUnknown) state->bound++;
    }
}

void merge_same_spaces(LeaseTable *table) noexcept {
    for (int i = 0; i < kLeaseSpaces; i++) {
        LeaseTable::Cell &first = table->cells[i];
        if (first.space.kind == LeaseKind::free) continue;
        for (int j = i + 1; j < kLeaseSpaces; j++) {
            LeaseTable::Cell &other = table->cells[j];
            if (!(other.space == first.space)) continue;
            raise_state(&first.state, other.state);
            other = LeaseTable::Cell{};
        }
    }
}

bool skip_lost(LeaseTable *table) noexcept {
    bool any = false;
    for (LeaseTable::Cell &c : table->cells) {
        if (c.space.kind == LeaseKind::free) continue;
        c.state.next++;
        if (c.state.bound != kBoundUnknown) c.state.bound += c.state.step;
        any = true;
    }
    return any;
}

}  // namespace idgen::backfill
