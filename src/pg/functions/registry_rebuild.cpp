// idgen_registry_rebuild(): the one command that ends a forgotten episode of the registry
// (core/registry/registry_generation.hpp), once every server of the cluster seeded it. The
// registry worker does it (cluster_shared.hpp: cluster_rebuild); this is its SQL face.
#include "pg/boundary/postgres_api.hpp"
#include "pg/cluster/cluster_shared.hpp"

extern "C" {
PG_FUNCTION_INFO_V1(idgen_registry_rebuild);
}

using namespace idgen::pg;

// () -> text: what was rebuilt; 55000 when there is nothing to rebuild yet.
Datum idgen_registry_rebuild(PG_FUNCTION_ARGS) {
    ClusterShared *cluster = require_cluster("idgen_registry_rebuild()");
    char answer[kErrorText];
    cluster_rebuild(cluster, answer);
    PG_RETURN_TEXT_P(cstring_to_text(answer));
}
