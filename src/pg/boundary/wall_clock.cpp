// Reading the clocks and sleeping on the process latch.
#include "pg/boundary/wall_clock.hpp"

#include <ctime>

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"

extern "C" {
#include "storage/latch.h"
#include "utils/wait_event.h"
}

namespace idgen::pg {

static int64_t read_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

int64_t now_unix_ns() {
    return read_ns(CLOCK_REALTIME);
}

int64_t monotonic_ns() {
    return read_ns(CLOCK_MONOTONIC);
}

int64_t coarse_monotonic_ns() {
    return read_ns(CLOCK_MONOTONIC_COARSE);
}

int64_t coarse_monotonic_lag_ns() {
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC_COARSE, &res);
    return int64_t{res.tv_sec} * 1000000000 + res.tv_nsec;
}

static int64_t monotonic_us() {
    return monotonic_ns() / 1000;
}

bool wait_for_clock(ClockWait *wait, int64_t ahead_ms) {
    const int64_t now = monotonic_us();
    if (wait->started_monotonic_us < 0) wait->started_monotonic_us = now;
    const int64_t waited_ms = (now - wait->started_monotonic_us) / 1000;
    if (waited_ms >= max_wait_ms) return false;
    // Sleep until the lead is back within bounds, in slices so that a clock that jumps forward
    // is noticed, and at most what is left of the wait budget.
    int64_t sleep_ms = ahead_ms - max_lead_ms;
    if (sleep_ms < 1) sleep_ms = 1;
    if (sleep_ms > 10) sleep_ms = 10;
    if (sleep_ms > max_wait_ms - waited_ms) sleep_ms = max_wait_ms - waited_ms;
    (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, sleep_ms, PG_WAIT_EXTENSION);
    ResetLatch(MyLatch);
    CHECK_FOR_INTERRUPTS();
    return true;
}

void raise_clock_behind(const ClockWait &wait, int64_t ahead_ms, const char *what) {
    const int64_t waited_ms = (monotonic_us() - wait.started_monotonic_us) / 1000;
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("%s: the wall clock is %lld ms behind the ids already issued", what,
                           static_cast<long long>(ahead_ms)),
                    errdetail("Ids may run at most idgen.max_lead = %d ms ahead of the clock; waited "
                              "%lld ms (idgen.max_wait = %d ms) for it to catch up.",
                              max_lead_ms, static_cast<long long>(waited_ms), max_wait_ms),
                    errhint("Check the server's time synchronisation; idgen never reuses an id, so "
                            "it refuses to generate until the clock is back.")));
    pg_unreachable();
}

}  // namespace idgen::pg
