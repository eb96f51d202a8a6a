#include "events/modifiers.hpp"

namespace sonde::events {

Parsed<void> apply_modifiers(EventSpec& event, std::string_view letters, size_t pos, bool leader,
                             bool group_modifier) {
  if (letters.empty()) return syntax_error(pos, "expected modifiers after ':' (u k h G H I p P S D e W b)");
  // Check everything before changing anything: an error leaves the event as it was.
  int precise = event.attr.precise_ip;
  for (size_t i = 0; i < letters.size(); ++i) {
    char c = letters[i];
    if (std::string_view("ukhGHIpPSDeWb").find(c) == std::string_view::npos)
      return syntax_error(pos + i, "unknown modifier '{}' (valid: u k h G H I p P S D e W b)", c);
    if (c != 'p' && letters.substr(0, i).find(c) != std::string_view::npos)
      return syntax_error(pos + i, "modifier '{}' given twice", c);
    if (c == 'p' && ++precise > 3)
      return syntax_error(pos + i, "too many 'p' modifiers: precise_ip is at most 3");
  }

  // perf's get_event_modifier: the first of u/k/h excludes all three privilege levels and each
  // letter then includes its own; likewise the first of G/H for guest and host.
  perf_event_attr& attr = event.attr;
  bool eu = attr.exclude_user, ek = attr.exclude_kernel, eh = attr.exclude_hv;
  bool eG = group_modifier && attr.exclude_guest, eH = group_modifier && attr.exclude_host;
  bool exclude = eu || ek || eh;
  bool exclude_gh = event.guest_host_chosen;
  auto exclude_all = [&] {
    if (!exclude) exclude = eu = ek = eh = true;
  };
  auto exclude_guest_host = [&] {
    if (!exclude_gh) exclude_gh = eG = eH = true;
  };
  for (char c : letters) {
    switch (c) {
      case 'u':
        exclude_all();
        if (!exclude_gh) eG = true;  // counting user space means the host's (perf_guest is off)
        eu = false;
        break;
      case 'k':
        exclude_all();
        ek = false;
        break;
      case 'h':
        exclude_all();
        eh = false;
        break;
      case 'G':
        exclude_guest_host();
        eG = false;
        break;
      case 'H':
        exclude_guest_host();
        eH = false;
        break;
      case 'I':
        attr.exclude_idle = 1;
        break;
      case 'p':
        ++attr.precise_ip;
        if (!exclude_gh) eG = true;  // precise sampling requires exclude_guest
        break;
      case 'P':
        event.precise_max = true;
        break;
      case 'S':
        event.sample_read = true;
        break;
      case 'D':
        if (leader) attr.pinned = 1;
        break;
      case 'e':
        if (leader) attr.exclusive = 1;
        break;
      case 'W':
        event.weak_group = true;
        break;
      case 'b':
        event.bpf_counter = true;
        break;
    }
  }
  attr.exclude_user = eu;
  attr.exclude_kernel = ek;
  attr.exclude_hv = eh;
  attr.exclude_guest = eG;
  attr.exclude_host = eH;
  event.guest_host_chosen = exclude_gh;
  return {};
}

std::string modifier_suffix_from_attr(const perf_event_attr& attr) {
  std::string letters;
  auto include = [&](bool excluded, char letter) {
    if (!excluded) letters.push_back(letter);
  };
  bool exclude_guest_default = false;
  if (attr.exclude_kernel || attr.exclude_user || attr.exclude_hv) {
    include(attr.exclude_kernel, 'k');
    include(attr.exclude_user, 'u');
    include(attr.exclude_hv, 'h');
    exclude_guest_default = true;
  }
  if (attr.precise_ip) {
    letters.append(std::string_view("ppp").substr(0, attr.precise_ip));
    exclude_guest_default = true;
  }
  if (attr.exclude_host || static_cast<bool>(attr.exclude_guest) == exclude_guest_default) {
    include(attr.exclude_host, 'H');
    include(attr.exclude_guest, 'G');
  }
  return letters.empty() ? "" : ":" + letters;
}

}  // namespace sonde::events
