#pragma once
// perf report's event groups ({a,b} or record --group, shown together by default; --group
// forces every event into one): the members' histograms matched entry by entry as perf's
// hists__match and hists__link do (the same entry by the entry tree's comparison; an entry of a
// member the leader lacks gets a row of its own), each row with every member's figures, ordered
// as perf orders a group: by the leader's figure then each member's, or with --group-sort-idx N
// by member N's and then the other members' (never the leader's), then by the sort keys.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/report/hist.hpp"
#include "format/features.hpp"

namespace sonde::analysis {

// Events report shows together: `members` events from `leader` on.
struct EventGroupSpan {
  size_t leader = 0;
  size_t members = 0;
  std::string name;     // the group's name, "" when it has none
  bool forced = false;  // --group made it of every event (perf's forced leader: named by its events)
};
// The file's groups (GROUP_DESC, of more than one event) unless `group` is false; with `group`
// true and no group in the file, all `event_count` events as one.
std::vector<EventGroupSpan> report_event_groups(
    const std::optional<std::vector<perfdata::GroupDesc>>& file_groups, size_t event_count,
    std::optional<bool> group);

struct GroupFigures {
  uint64_t children_period = 0, self_period = 0;
  uint64_t sys_period = 0, usr_period = 0;
  uint64_t self_samples = 0;
};

// The figure a -F field names.
uint64_t GroupFigures::*figure_field(ReportFigure figure);

// perf's comparison of two rows' figures in a group (`a` and `b` point at `members` figures
// each): the leader's then each member's, or member `sort_index`'s then the other members'
// (never the leader's) when it names one. > 0 when `a` goes first.
int compare_group_figures(const GroupFigures* a, const GroupFigures* b, size_t members, size_t sort_index,
                          uint64_t GroupFigures::*field);

class GroupHistogram {
 public:
  // `members`: the group's built histograms, leader first. `sort_index`: --group-sort-idx (0, or
  // one out of range, for perf's default).
  GroupHistogram(std::vector<Histogram*> members, const ReportTables& tables, const HistOptions& options,
                 size_t sort_index);

  size_t member_count() const { return members_.size(); }
  Histogram& member(size_t m) const { return *members_[m]; }
  size_t row_count() const { return representatives_.size(); }
  // Rows in perf's output order.
  const std::vector<uint32_t>& order() const { return order_; }
  // The entry a row shows its keys from (the leader's when it has one), and which member's it is.
  const HistEntry& entry(uint32_t row) const;
  uint32_t entry_member(uint32_t row) const { return representatives_[row].member; }
  uint32_t entry_index(uint32_t row) const { return representatives_[row].entry; }
  const GroupFigures& figures(uint32_t row, size_t member) const {
    return figures_[row * members_.size() + member];
  }

 private:
  struct Representative {
    uint32_t member;
    uint32_t entry;
  };
  std::vector<Histogram*> members_;
  std::vector<Representative> representatives_;
  std::vector<GroupFigures> figures_;  // row-major: members_.size() per row
  std::vector<uint32_t> order_;
};

}  // namespace sonde::analysis
