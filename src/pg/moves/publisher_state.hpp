// A publisher's idgen as a subscriber sees it: its node id, whether it has idgen, and its
// reserved_state rows, read over libpq (publisher_connection.hpp: every wait cancellable), and
// those rows taken over here as a restore of its dump would take them. Used when a subscription
// is made, reconnected or dropped (subscription_statements.hpp) and by idgen_carry_state.
#pragma once

#include <cstdint>

#include "pg/moves/carried_state.hpp"

namespace idgen::pg {

struct PublisherState {
    char error[256];
    int64_t node_id;  // -1: none
    bool has_idgen;
    int rows;
    CarriedRow row[kLeaseSpaces + 1];
};

// Connects to the publisher with `conninfo` (10 s to connect, 10 s per query, each wait
// cancellable: publisher_connection.hpp) and reads its idgen.node_id and, when `with_rows`, its
// reserved_state. `password_required`: for a subscription whose owner is no superuser, the
// server's own credentials (a .pgpass, peer authentication) must not be what let the connection
// in, as PostgreSQL requires of the subscription itself: the connection string must give a
// password, and the connection must have used one. libpq's objects are gone before anything
// can raise an ERROR here (a cancel closes the connection before it raises): the caller acts on
// the copy.
bool read_publisher(const char *conninfo, bool with_rows, bool password_required, PublisherState *p);

// Takes the publisher's rows over: every generator raised above its horizon, every lease
// counter above its own (as a restore of its dump would); into this database's rows too when it
// has idgen.
void take_over_publisher(const PublisherState &p);

}  // namespace idgen::pg
