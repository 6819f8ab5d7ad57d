// Folder src/core/base: what every part of the core uses - failure as a Status, floor
// arithmetic, atomics on plain shared words, civil time, the UUID value, MAC address text.
//
// How the core reports failure: an error class and a short message in a fixed buffer, so
// that nothing with a destructor or an exception ever has to cross into PostgreSQL. The
// PostgreSQL layer maps each class to one SQLSTATE; the core never sees SQLSTATEs.
#pragma once

namespace idgen {

enum class Errc {
    ok = 0,
    timestamp_out_of_range,  // a time the layout cannot hold
    value_out_of_range,      // a number outside its field
    invalid_parameter,       // a definition or setting that makes no sense
    not_attached,            // the generator has no usable node identity
    exhausted,               // a finite id space has no value left
};

struct Status {
    Errc code = Errc::ok;
    // Written only with an error, and read only when code is not ok: hot paths that succeed
    // never touch (or zero) the buffer.
    char message[240];

    bool ok() const noexcept { return code == Errc::ok; }

    // Default-initialised, not value-initialised (Status{} would zero the 240-byte buffer).
    static Status success() noexcept {
        Status s;
        return s;
    }

    __attribute__((format(printf, 2, 3))) static Status error(Errc code, const char *fmt, ...) noexcept;
};

}  // namespace idgen
