// The module's identity: the magic block PostgreSQL checks when it loads idgen.so.
// Settings and shared memory are registered from _PG_init as generators need them.
#include "postgres_api.hpp"

extern "C" {
PG_MODULE_MAGIC;
}
