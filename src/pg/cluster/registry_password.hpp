// The password cluster mode authenticates to etcd with. idgen.registry_password is a setting, and
// PostgreSQL lets every member of pg_read_all_settings (so of pg_monitor: monitoring agents) read
// settings marked superuser-only; idgen.registry_password_file names a file instead, as libpq's
// passfile and Patroni do, which only the server's operating-system user may read: the setting
// shows the path, never the password.
#pragma once

#include <string>

namespace idgen::pg {

// At preload, in cluster mode: FATAL when both settings are set, or when the file cannot be read
// or others may read it.
void check_registry_password_at_start();

// The password: the first line of idgen.registry_password_file (read when the registry worker
// starts), or idgen.registry_password. On a file that cannot be read, "" and `problem` says why.
std::string registry_password_now(std::string *problem);

}  // namespace idgen::pg
