#include "probe/name_filter.hpp"

#include <fmt/format.h>

#include <cctype>

#include "base/strings.hpp"

namespace sonde::probe {

struct NameFilter::Node {
  enum class Op { glob, negate, both, either } op = Op::glob;
  std::string pattern;
  std::shared_ptr<const Node> left, right;

  bool matches(std::string_view name) const {
    switch (op) {
      case Op::glob:
        return glob_match(pattern, name);
      case Op::negate:
        return !left->matches(name);
      case Op::both:
        return left->matches(name) && right->matches(name);
      case Op::either:
        return left->matches(name) || right->matches(name);
    }
    return false;
  }
};

namespace {

using NodePtr = std::shared_ptr<const NameFilter::Node>;

struct Parser {
  std::string_view text;
  size_t at = 0;

  void skip_spaces() {
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  }
  Result<NodePtr> error(std::string_view what) {
    return fail_usage(fmt::format("bad filter '{}': {} at column {}", text, what, at + 1));
  }

  // either := both ('|' both)* ; both := unary ('&' unary)* ; unary := '!' unary | '(' either ')' | glob
  Result<NodePtr> either() {
    auto left = both();
    if (!left) return left;
    skip_spaces();
    while (at < text.size() && text[at] == '|') {
      ++at;
      auto right = both();
      if (!right) return right;
      *left = std::make_shared<NameFilter::Node>(
          NameFilter::Node{NameFilter::Node::Op::either, "", *left, *right});
      skip_spaces();
    }
    return left;
  }
  Result<NodePtr> both() {
    auto left = unary();
    if (!left) return left;
    skip_spaces();
    while (at < text.size() && text[at] == '&') {
      ++at;
      auto right = unary();
      if (!right) return right;
      *left =
          std::make_shared<NameFilter::Node>(NameFilter::Node{NameFilter::Node::Op::both, "", *left, *right});
      skip_spaces();
    }
    return left;
  }
  Result<NodePtr> unary() {
    skip_spaces();
    if (at >= text.size()) return error("a pattern is missing");
    if (text[at] == '!') {
      ++at;
      auto inner = unary();
      if (!inner) return inner;
      return std::make_shared<NameFilter::Node>(
          NameFilter::Node{NameFilter::Node::Op::negate, "", *inner, nullptr});
    }
    if (text[at] == '(') {
      ++at;
      auto inner = either();
      if (!inner) return inner;
      skip_spaces();
      if (at >= text.size() || text[at] != ')') return error("')' is missing");
      ++at;
      return inner;
    }
    size_t start = at;
    while (at < text.size() && !std::isspace(static_cast<unsigned char>(text[at])) && text[at] != '&' &&
           text[at] != '|' && text[at] != ')' && text[at] != '(')
      ++at;
    if (at == start) return error("a pattern is missing");
    return std::make_shared<NameFilter::Node>(NameFilter::Node{
        NameFilter::Node::Op::glob, std::string(text.substr(start, at - start)), nullptr, nullptr});
  }
};

}  // namespace

Result<NameFilter> NameFilter::parse(std::string_view text) {
  Parser parser{text};
  auto root = parser.either();
  if (!root) return tl::unexpected(root.error());
  parser.skip_spaces();
  if (parser.at != text.size())
    return fail_usage(fmt::format("bad filter '{}': unexpected '{}'", text, text.substr(parser.at)));
  NameFilter filter;
  filter.root_ = *root;
  return filter;
}

bool NameFilter::matches(std::string_view name) const { return root_ && root_->matches(name); }

void NameFilter::or_with(NameFilter other) {
  if (!root_) {
    root_ = other.root_;
    return;
  }
  root_ = std::make_shared<Node>(Node{Node::Op::either, "", root_, other.root_});
}

}  // namespace sonde::probe
