#include "symbols/debuginfod_client.hpp"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <unistd.h>

#include <cstdlib>

namespace sonde::symbols {

namespace {

// libdebuginfod's entry points, resolved once; all null when it cannot be loaded.
struct Debuginfod {
  decltype(&debuginfod_begin) begin = nullptr;
  decltype(&debuginfod_find_debuginfo) find_debuginfo = nullptr;
  decltype(&debuginfod_end) end = nullptr;

  static const Debuginfod& loaded() {
    static const Debuginfod library = [] {
      Debuginfod functions;
      void* handle = ::dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
      if (!handle) return functions;
      functions.begin = reinterpret_cast<decltype(&debuginfod_begin)>(::dlsym(handle, "debuginfod_begin"));
      functions.find_debuginfo = reinterpret_cast<decltype(&debuginfod_find_debuginfo)>(
          ::dlsym(handle, "debuginfod_find_debuginfo"));
      functions.end = reinterpret_cast<decltype(&debuginfod_end)>(::dlsym(handle, "debuginfod_end"));
      if (!functions.begin || !functions.find_debuginfo || !functions.end) functions = {};
      return functions;
    }();
    return library;
  }
};

}  // namespace

std::string debuginfod_debuginfo(const std::string& build_id) {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  if (!urls || !*urls || build_id.empty()) return "";
  const Debuginfod& library = Debuginfod::loaded();
  if (!library.begin) return "";
  debuginfod_client* client = library.begin();
  if (!client) return "";
  char* path = nullptr;
  int fd = library.find_debuginfo(client, reinterpret_cast<const unsigned char*>(build_id.c_str()), 0, &path);
  std::string out;
  if (fd >= 0) {
    ::close(fd);
    if (path) out = path;
  }
  std::free(path);
  library.end(client);
  return out;
}

}  // namespace sonde::symbols
