// Atomic access to a plain uint64_t that lives in memory shared between processes.
// Shared memory holds only plain structs (no std::atomic), so the core reaches such words
// through these GCC builtins; on x86-64 they are single lock-free instructions.
// Loads and read-modify-writes are sequentially consistent: retiring a Snowflake clock
// (snowflake.cpp, retire) relies on one total order of a fetch_add and a load on each of two
// words, which acquire/release alone does not give. On x86-64 they compile to the same
// instructions as acquire/release (a plain load, a locked instruction). Stores stay release
// stores (a sequentially consistent store would be an xchg).
#pragma once

#include <cstdint>

namespace idgen {

static_assert(__atomic_always_lock_free(sizeof(uint64_t), 0), "64-bit atomics must be lock-free");

inline uint64_t atomic_load(const uint64_t *word) noexcept {
    return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

inline void atomic_store(uint64_t *word, uint64_t value) noexcept {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

inline uint64_t atomic_fetch_add(uint64_t *word, uint64_t delta) noexcept {
    return __atomic_fetch_add(word, delta, __ATOMIC_SEQ_CST);
}

// On failure *expected receives the current value.
inline bool atomic_compare_exchange(uint64_t *word, uint64_t *expected, uint64_t desired) noexcept {
    return __atomic_compare_exchange_n(word, expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

// A sequentially consistent fence: a store before it is seen by everyone before a load after it
// reads (on x86-64 an mfence; the one ordering a release store does not give).
inline void atomic_fence() noexcept {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

// Raises *word to at least value; returns the value it holds afterwards.
inline uint64_t atomic_raise(uint64_t *word, uint64_t value) noexcept {
    uint64_t seen = atomic_load(word);
    while (seen < value && !atomic_compare_exchange(word, &seen, value)) {
    }
    return seen < value ? value : seen;
}

}  // namespace idgen
