// Folder src/core/clocks: the clock machinery every time-ordered generator shares - this clock,
// sessions' runs of its positions, and the durable horizon rule.
//
// A logical clock that never goes back, shared by all processes through one 64-bit word.
//
// Every time-ordered generator (Snowflake, UUID v1 and v7, locality UUIDs, unique timestamps)
// is the same machine in its own unit: the word holds the next free position; a draw first
// raises it to the wall clock's position if the clock has moved past it, then takes the next
// free position with an atomic add, unless that runs further ahead of the wall clock than
// allowed. So positions are unique and strictly increasing in the order they are taken, whatever
// the wall clock does; no lock is taken. (idgen.ordering = 'session' takes runs of positions with
// one add and hands them out later: session_run.hpp.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/status.hpp"

namespace idgen {

struct LogicalClock {
    uint64_t next_free;  // the smallest position not yet handed out
};

// The cache line (x86-64; PostgreSQL aligns shared memory to at least this): a shared word that
// many drawers write gets a line of its own (alignas), so that drawers of other words do not
// contend for it.
constexpr std::size_t kCacheLine = 64;

struct Draw {
    enum class Outcome {
        issued,     // position is now ours, never to be handed out again
        ahead,      // the clock would have to run past `limit`: wait for the wall clock
        exhausted,  // the clock would have to run past `max_position`: the id space is used up
    };
    Outcome outcome;
    uint64_t position;  // issued: the position taken; otherwise the position that was needed
};

// Draws one position: at least `floor` (the wall clock's position now), at most `limit`
// (how far ahead of the wall clock positions may run) and `max_position` (the last one the
// layout can hold). With `count` > 1 the atomic add takes `count` positions at once and
// `position` is the first of them (session_run.hpp); only the first is checked against the
// bounds, so the caller drops those of the others that lie past them.
Draw draw(LogicalClock *clock, uint64_t floor, uint64_t limit, uint64_t max_position,
          uint64_t count = 1) noexcept;

// Moves the clock to at least `position` (used when a generator starts, so that it resumes
// above a durable high-water mark).
void raise_to(LogicalClock *clock, uint64_t position) noexcept;

// What every generator's draw gives back, one shape for all layouts: the fields of the value it
// issued (Fields: the layout's own, e.g. a Snowflake id and its millisecond) and the end of its
// clock unit, which the durable horizon must cover; or how far ahead of the wall clock the next
// value would be (wait); or a failure, its reason in the caller's Status. `retired` is
// Snowflake's: the sequencer's slot changed hands during the draw (snowflake::next_in_generation).
template <typename Fields>
struct Drawn : Fields {
    using FieldsType = Fields;
    enum class Kind { issued, wait, failed, retired };
    Kind kind;
    int64_t end_unix_us;  // issued
    int64_t ahead_ms;     // wait

    static Drawn issued_with(const Fields &fields, int64_t end_unix_us) noexcept {
        Drawn d{};
        static_cast<Fields &>(d) = fields;
        d.kind = Kind::issued;
        d.end_unix_us = end_unix_us;
        return d;
    }
    static Drawn waiting(int64_t ahead_ms) noexcept {
        Drawn d{};
        d.kind = Kind::wait;
        d.ahead_ms = ahead_ms;
        return d;
    }
    static Drawn failed_with(Status *error, const Status &why) noexcept {
        *error = why;
        Drawn d{};
        d.kind = Kind::failed;
        return d;
    }
};

}  // namespace idgen
