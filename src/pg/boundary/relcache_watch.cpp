// The one relcache callback idgen registers (relcache_watch.hpp).
#include "pg/boundary/relcache_watch.hpp"

extern "C" {
#include "utils/inval.h"
}

namespace idgen::pg {

static RelcacheWatcher watchers[8];  // this backend's: callbacks run in the backend that registered them
static int watcher_count = 0;

static void on_relcache_invalidation(Datum, Oid relid) {
    for (int i = 0; i < watcher_count; i++) watchers[i](relid);
}

void watch_relcache(RelcacheWatcher watcher) {
    for (int i = 0; i < watcher_count; i++)
        if (watchers[i] == watcher) return;
    if (watcher_count == static_cast<int>(sizeof watchers / sizeof watchers[0]))
        elog(ERROR, "idgen: too many relcache watchers");
    if (watcher_count == 0) CacheRegisterRelcacheCallback(on_relcache_invalidation, 0);
    watchers[watcher_count++] = watcher;
}

}  // namespace idgen::pg
