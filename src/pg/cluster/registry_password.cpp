// The password of cluster mode's etcd user: see registry_password.hpp.
#include "pg/cluster/registry_password.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"

namespace idgen::pg {

static bool file_set() {
    return registry_password_file != nullptr && registry_password_file[0] != '\0';
}

// The file's first line, its line end removed; false with `problem` when it cannot be read, or
// when others than its owner and group may read it (the password would not be the server's alone).
static bool read_password_file(std::string *out, std::string *problem) {
    struct stat st;
    if (stat(registry_password_file, &st) != 0) {
        *problem = std::string("could not read idgen.registry_password_file \"") + registry_password_file +
                   "\": " + strerror(errno);
        return false;
    }
    if ((st.st_mode & S_IRWXO) != 0) {
        *problem = std::string("idgen.registry_password_file \"") + registry_password_file +
                   "\" is readable by others: allow its owner (and group) only, chmod 600 or 640";
        return false;
    }
    FILE *f = fopen(registry_password_file, "r");
    if (f == nullptr) {
        *problem = std::string("could not read idgen.registry_password_file \"") + registry_password_file +
                   "\": " + strerror(errno);
        return false;
    }
    char line[1024] = "";
    if (fgets(line, sizeof line, f) == nullptr) line[0] = '\0';
    fclose(f);
    line[strcspn(line, "\r\n")] = '\0';
    *out = line;
    return true;
}

// Why the file cannot be used, into `out` (empty: it can); the strings are gone on return, before
// the caller may raise.
static void password_file_problem(char *out, size_t size) {
    std::string password, problem;
    read_password_file(&password, &problem);
    strlcpy(out, problem.c_str(), size);
}

void check_registry_password_at_start() {
    if (!file_set()) return;
    if (registry_password != nullptr && registry_password[0] != '\0')
        ereport(
            FATAL,
            (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
             errmsg("idgen.registry_password and idgen.registry_password_file cannot both be set"),
             errhint("Keep the file: members of pg_read_all_settings can read idgen.registry_password.")));
    char problem[MAXPGPATH + 128];
    password_file_problem(problem, sizeof problem);
    if (problem[0] != '\0') ereport(FATAL, (errcode(ERRCODE_CONFIG_FILE_ERROR), errmsg("%s", problem)));
}

std::string registry_password_now(std::string *problem) {
    if (!file_set()) return registry_password != nullptr ? registry_password : "";
    std::string password;
    if (!read_password_file(&password, problem)) return "";
    return password;
}

}  // namespace idgen::pg
