// The one place the PostgreSQL layer includes PostgreSQL's headers. They are C headers
// without extern "C" guards, and port.h redefines printf-family names, so every wrapper
// includes its C++ and core headers first and this header last (see FIELD-NOTES).
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
