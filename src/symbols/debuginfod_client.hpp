#pragma once
// Separate debug files from debuginfod servers, as elfutils itself does it: libdebuginfod (and
// the curl, TLS, Kerberos and LDAP libraries it pulls in) is loaded only when DEBUGINFOD_URLS
// names a server, so no other run pays for it at start-up.
#include <string>

namespace sonde::symbols {

// The path of the debug file with this build-id (hex) in debuginfod's cache, fetched if need be;
// "" when DEBUGINFOD_URLS is unset or empty, libdebuginfod cannot be loaded, or no server has it.
std::string debuginfod_debuginfo(const std::string& build_id);

}  // namespace sonde::symbols
