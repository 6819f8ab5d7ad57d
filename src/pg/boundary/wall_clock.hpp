// idgen's one clock module: the wall clock as the generators see it (CLOCK_REALTIME, which
// libfaketime can move in tests), the monotonic clock that times waits and registry leases, and
// the bounded, interruptible wait for the wall clock to catch up with ids already issued.
#pragma once

#include <cstdint>

namespace idgen::pg {

int64_t now_unix_ns();

inline int64_t now_unix_us() {
    return now_unix_ns() / 1000;
}

// CLOCK_MONOTONIC: never steps, so waits and lease deadlines measured on it hold whatever the
// wall clock does.
int64_t monotonic_ns();

// CLOCK_MONOTONIC_COARSE (the hot path of cluster mode: no system call) and how far it may lag
// CLOCK_MONOTONIC (its resolution).
int64_t coarse_monotonic_ns();
int64_t coarse_monotonic_lag_ns();

// One wait, started when a generator first finds itself too far ahead of the wall clock.
struct ClockWait {
    int64_t started_monotonic_us = -1;
};

// Sleeps a little (interruptibly) for a clock that is `ahead_ms` behind the next id; false,
// without sleeping, once idgen.max_wait has been spent on this wait.
bool wait_for_clock(ClockWait *wait, int64_t ahead_ms);

// The error (SQLSTATE 55000) of a wait that wait_for_clock gave up, naming `what`.
[[noreturn]] void raise_clock_behind(const ClockWait &wait, int64_t ahead_ms, const char *what);

}  // namespace idgen::pg
