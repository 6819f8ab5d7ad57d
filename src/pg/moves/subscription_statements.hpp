// The hook on CREATE, ALTER and DROP SUBSCRIPTION in every database; what it does and why is
// told in subscription_guard.hpp.
#pragma once

namespace idgen::pg {

// At preload: watches the subscription statements of every database.
void install_subscription_hook();

}  // namespace idgen::pg
