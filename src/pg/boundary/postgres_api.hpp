// Folder src/pg/boundary: where PostgreSQL meets the rest of the layer - its headers, the
// differences between majors, conversions, errors, settings, clocks, random bits.
//
// The boundary to PostgreSQL's headers: postgres.h (which must come before any other
// PostgreSQL header) and the headers nearly every file of the layer needs, with the differences
// between majors. PostgreSQL's headers are C without extern "C" guards, and port.h redefines
// printf-family names, so a file includes its C++ and core headers first, then this one, then,
// in an extern "C" block, the further PostgreSQL headers its own concern needs (a subsystem's
// catalog, WAL or replication headers stay with the one file that uses them;
// scripts/check-structure lists them).
#pragma once

extern "C" {
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/inet.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
}
// The differences between PostgreSQL majors (15 to 18).
#include "pg/boundary/pg_compat.hpp"
