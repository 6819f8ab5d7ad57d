// The backend's buffer of strong random bytes (random_bits.hpp).
#include "pg/boundary/random_bits.hpp"

#include "pg/boundary/postgres_api.hpp"

namespace idgen::pg {

static constexpr int kBufferWords = 512;
static uint64_t buffer[kBufferWords];
static int next_word = kBufferWords;  // empty until the first call in this backend

uint64_t random_u64() {
    if (next_word == kBufferWords) {
        if (!pg_strong_random(buffer, sizeof buffer))
            ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("could not generate random values")));
        next_word = 0;
    }
    const uint64_t r = buffer[next_word];
    buffer[next_word++] = 0;  // used bytes are not kept in memory
    return r;
}

}  // namespace idgen::pg
