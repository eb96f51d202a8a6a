#include <gtest/gtest.h>

#include "run.hpp"

using namespace sonde::test;

TEST(Cli, UnknownCommandIsAClearError) {
  auto result = run(sonde_bin() + " frobnicate");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("'frobnicate' is not a sonde command"), std::string::npos) << result.err;
}

TEST(Cli, VersionPrints) {
  auto result = run(sonde_bin() + " --version");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out.rfind("sonde version ", 0), 0u);
}
