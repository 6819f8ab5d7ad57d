// Random bits for the random part of live UUIDs, from PostgreSQL's strong random source
// (pg_strong_random: OpenSSL's generator, or the kernel's), read 4 KiB at a time so that one
// read serves 512 UUIDs instead of one. The buffer is this backend's own and starts empty: it
// is filled only in the backend that uses it, never before a fork, so no two processes ever
// hand out the same bytes.
#pragma once

#include <cstdint>

namespace idgen::pg {

// 64 bits no process has used before; raises an error when the random source fails.
uint64_t random_u64();

}  // namespace idgen::pg
