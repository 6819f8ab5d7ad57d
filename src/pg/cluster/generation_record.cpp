// The file of the registry's generation: see generation_record.hpp.
#include "pg/cluster/generation_record.hpp"

#include <cstring>

#include "pg/boundary/postgres_api.hpp"
#include "pg/durability/durable_record.hpp"

namespace idgen::pg {

static const char kGenerationFile[] = "idgen.registry";
static const uint32_t kGenerationMagic = 0x1D6E4731;  // "idgen generation", format 1

struct GenerationRecord {
    char prefix[160];  // "/<idgen.registry_cluster>/" (cut at 159 bytes)
    char token[48];
    char episode[48];
    int64_t revision;
};

static void copy_text(char *to, size_t size, const std::string &from) {
    strlcpy(to, from.c_str(), size);
}

registry::Remembered load_generation(const std::string &prefix) {
    GenerationRecord record;
    memset(&record, 0, sizeof record);
    if (read_record(kGenerationFile, kGenerationMagic, &record, sizeof record) != RecordRead::ok) return {};
    char expected[sizeof record.prefix];
    copy_text(expected, sizeof expected, prefix);
    record.prefix[sizeof record.prefix - 1] = record.token[sizeof record.token - 1] =
        record.episode[sizeof record.episode - 1] = '\0';
    if (strcmp(expected, record.prefix) != 0) return {};
    return registry::Remembered{record.token, record.episode, record.revision};
}

void store_generation(const std::string &prefix, const registry::Remembered &mine) {
    GenerationRecord record;
    memset(&record, 0, sizeof record);
    copy_text(record.prefix, sizeof record.prefix, prefix);
    copy_text(record.token, sizeof record.token, mine.token);
    copy_text(record.episode, sizeof record.episode, mine.episode);
    record.revision = mine.revision;
    write_record(kGenerationFile, kGenerationMagic, &record, sizeof record);
}

}  // namespace idgen::pg
