// The server's node id, required (node_source.hpp).
#include "pg/cluster/node_source.hpp"

namespace idgen::pg {

int32_t require_server_node(const char *what, const char *hint) {
    const NodeSource n = server_node(what);  // in cluster mode, 55000 when detached
    if (n.node < 0)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("%s needs idgen.node_id", what),
                 errdetail("Its ids carry the node id, so that servers with distinct node ids "
                           "never make the same one."),
                 errhint("%s", hint)));
    return n.node;
}

}  // namespace idgen::pg
