// The file of the registry's generation: see generation_record.hpp.
#include "pg/cluster/generation_record.hpp"

#include <cstring>

#include "pg/boundary/postgres_api.hpp"
#include "pg/durability/durable_record.hpp"

extern "C" {
#include "access/xlog.h"
}

namespace idgen::pg {

static const char kGenerationFile[] = "idgen.registry";
static const uint32_t kGenerationMagicV1 = 0x1D6E4731;  // "idgen generation", format 1 (no timeline)
static const uint32_t kGenerationMagic = 0x1D6E4732;    // format 2: the timeline it was written on

struct GenerationRecord {
    char prefix[160];  // "/<idgen.registry_cluster>/" (cut at 159 bytes)
    char token[48];
    char episode[48];
    int64_t revision;
    uint32_t timeline;  // format 2: the WAL timeline this server ran on when it wrote the record
    uint32_t unused;
};
// Format 1 is format 2 without the timeline and what follows it.
static const size_t kFormat1Size = offsetof(GenerationRecord, timeline);

static void copy_text(char *to, size_t size, const std::string &from) {
    strlcpy(to, from.c_str(), size);
}

// Format 2, else format 1 (written before 0.9.9: its timeline is taken as this server's own, as
// then); missing or unreadable as read_record says.
static RecordRead read_generation(GenerationRecord *record) {
    memset(record, 0, sizeof *record);
    const RecordRead read = read_record(kGenerationFile, kGenerationMagic, record, sizeof *record);
    if (read != RecordRead::unreadable) return read;
    if (read_record(kGenerationFile, kGenerationMagicV1, record, kFormat1Size) != RecordRead::ok)
        return RecordRead::unreadable;
    record->timeline = GetWALInsertionTimeLine();
    return RecordRead::ok;
}

registry::Remembered load_generation(const std::string &prefix, std::string *unreadable) {
    GenerationRecord record;
    switch (read_generation(&record)) {
        case RecordRead::missing:
            return {};
        case RecordRead::unreadable:
            *unreadable = std::string("the file \"") + kGenerationFile +
                          "\" in the data directory is unreadable (damaged, or not idgen's)";
            return {};
        case RecordRead::ok:
            break;
    }
    char expected[sizeof record.prefix];
    copy_text(expected, sizeof expected, prefix);
    record.prefix[sizeof record.prefix - 1] = record.token[sizeof record.token - 1] =
        record.episode[sizeof record.episode - 1] = '\0';
    if (strcmp(expected, record.prefix) != 0) return {};
    if (record.timeline != GetWALInsertionTimeLine()) {
        ereport(LOG,
                (errmsg("idgen registry worker: \"%s\" was written on WAL timeline %u, this server runs on "
                        "timeline %u: it remembers no generation of its own, and joins the one etcd holds",
                        kGenerationFile, record.timeline, GetWALInsertionTimeLine()),
                 errdetail("A standby promoted, or a copy recovered to a new timeline, holds its "
                           "source's record, not its own; the ids it made are in its WAL.")));
        return {};
    }
    return registry::Remembered{record.token, record.episode, record.revision};
}

void store_generation(const std::string &prefix, const registry::Remembered &mine) {
    GenerationRecord record;
    memset(&record, 0, sizeof record);
    copy_text(record.prefix, sizeof record.prefix, prefix);
    copy_text(record.token, sizeof record.token, mine.token);
    copy_text(record.episode, sizeof record.episode, mine.episode);
    record.revision = mine.revision;
    record.timeline = GetWALInsertionTimeLine();
    write_record(kGenerationFile, kGenerationMagic, &record, sizeof record);
}

}  // namespace idgen::pg
