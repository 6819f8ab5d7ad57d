// The horizon file: $PGDATA/idgen.horizon holds the durable horizon (see core/horizon.hpp),
// written atomically (temporary file, fsync, durable rename) and checked by CRC when read.
#pragma once

#include <cstdint>

namespace idgen::pg {

enum class HorizonRead { missing, ok, unreadable };

HorizonRead read_horizon_file(int64_t *unix_us);

// Raises an ERROR if the file cannot be written and made durable.
void write_horizon_file(int64_t unix_us);

}  // namespace idgen::pg
