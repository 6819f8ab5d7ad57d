// The draw of locality UUID times and counters.
#include "core/generators/locality_clock.hpp"

#include "core/base/atomic_word.hpp"
#include "core/layouts/locality_uuid.hpp"

namespace idgen::locality {

static constexpr int kSubMillisecondBits = 16;
static constexpr int64_t kMaxMillis = (int64_t{1} << 48) - 1;  // the 48-bit time field

uint64_t position_after(int64_t horizon_unix_us) noexcept {
    const int64_t ms = (horizon_unix_us + 999) / 1000;
    return ms <= 0 ? 0 : static_cast<uint64_t>(ms) << kSubMillisecondBits;
}

int64_t unix_us_of(uint64_t position) noexcept {
    return static_cast<int64_t>(position >> kSubMillisecondBits) * 1000;
}

uint32_t variable_counter(uint64_t sequence) noexcept {
    return static_cast<uint32_t>(sequence) * kVariableStep;
}

static constexpr uint64_t kPositionsPerMs = uint64_t{1} << kSubMillisecondBits;

Tick next(State *state, int64_t now_unix_ms, int64_t max_lead_ms, Status *error,
          SessionRun *session) noexcept {
    if (now_unix_ms < 0 || now_unix_ms > kMaxMillis - max_lead_ms)
        return Tick::failed_with(
            error, Status::error(Errc::timestamp_out_of_range,
                                 "the wall clock is outside the 48-bit time field of locality UUIDs"));
    const uint64_t floor = static_cast<uint64_t>(now_unix_ms) << kSubMillisecondBits;
    const uint64_t limit = (static_cast<uint64_t>(now_unix_ms + max_lead_ms + 1) << kSubMillisecondBits) - 1;
    uint64_t sequence;
    Draw d;
    if (session == nullptr) {
        d = draw(&state->clock, floor, limit, UINT64_MAX);
        if (d.outcome == Draw::Outcome::issued) sequence = atomic_fetch_add(&state->sequence, 1);
    } else {
        const RunDraw r =
            draw_in_run(&state->clock, &session->run, floor, limit, UINT64_MAX, kPositionsPerMs);
        d = r.draw;
        if (r.refilled)
            session->sequence_start =
                atomic_fetch_add(&state->sequence, session->run.end - session->run.start);
        sequence = session->sequence_start + (d.position - session->run.start);
    }
    const int64_t ms = static_cast<int64_t>(d.position >> kSubMillisecondBits);
    // Never exhausted: 48 + 16 bits fill the word.
    if (d.outcome != Draw::Outcome::issued) return Tick::waiting(ms - now_unix_ms);
    return Tick::issued_with(TickFields{ms, sequence}, (ms + 1) * 1000);
}

}  // namespace idgen::locality
