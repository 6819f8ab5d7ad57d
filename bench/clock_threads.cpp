// The contention of the shared clock word alone, without PostgreSQL: T threads draw
// positions from one LogicalClock as the live generators do, each with the wall clock as the
// floor, with one atomic add per id ('strict') or from runs ('session', session_run.hpp), and
// the time per id is printed for each thread count up to the machine's cores. Not a test: a
// measurement (make bench-clock), since this machine has no hardware counters to count cache
// misses with.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>
#include <vector>

#include "core/clocks/logical_clock.hpp"
#include "core/clocks/session_run.hpp"

using namespace idgen;

namespace {

constexpr uint64_t kPerMs = 1 << 15;  // a 128-node Snowflake sequencer's positions per millisecond
constexpr uint64_t kDrawsPerThread = 4000000;

uint64_t wall_position() {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000) * kPerMs;
}

// Nanoseconds of one thread per id: the wall time of the run over the ids each thread drew
// (1 thread's figure at every count is perfect scaling).
double ns_per_id(int threads, bool session) {
    alignas(kCacheLine) LogicalClock clock{0};
    std::atomic<int> ready{0};
    std::vector<std::thread> running;
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; t++)
        running.emplace_back([&] {
            PositionRun run;
            ready++;
            while (ready.load() < threads) {
            }
            for (uint64_t i = 0; i < kDrawsPerThread; i++) {
                const uint64_t floor = wall_position();
                const Draw d = draw_ordered(&clock, session ? &run : nullptr, floor, floor + 5000 * kPerMs,
                                            UINT64_MAX / 2, kPerMs);
                if (d.outcome != Draw::Outcome::issued) std::abort();
            }
        });
    for (auto &th : running) th.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return seconds * 1e9 / static_cast<double>(kDrawsPerThread);
}

}  // namespace

// The median of five runs, strict and session alternating.
double median_ns_per_id(int threads, bool session) {
    std::vector<double> runs;
    for (int r = 0; r < 5; r++) runs.push_back(ns_per_id(threads, session));
    std::sort(runs.begin(), runs.end());
    return runs[2];
}

int main() {
    const int cores = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
    std::printf("threads | strict: ns per id (x 1 thread) | session: ns per id (x 1 thread)\n");
    double strict1 = 0, session1 = 0;
    for (int threads = 1; threads <= cores && threads <= 16; threads *= 2) {
        const double strict = median_ns_per_id(threads, false);
        const double session = median_ns_per_id(threads, true);
        if (threads == 1) strict1 = strict, session1 = session;
        std::printf("%7d | %14.1f (%.2fx) | %15.1f (%.2fx)\n", threads, strict, strict / strict1, session,
                    session / session1);
    }
    return 0;
}
