// parse_n_grid: the N grid of SPEC §2.
#include <gtest/gtest.h>

#include <numeric>

#include "geoattn/metrics/core/grid.h"
#include "geoattn/util/error.h"

using geoattn::metrics::parse_n_grid;
using Grid = std::vector<int64_t>;

namespace {
Grid range(int64_t a, int64_t b) {
  Grid out(static_cast<size_t>(b - a + 1));
  std::iota(out.begin(), out.end(), a);
  return out;
}

void expect_error(const std::string& spec, int64_t T, const std::string& needle) {
  try {
    parse_n_grid(spec, T);
    ADD_FAILURE() << "no error for '" << spec << "' at T=" << T;
  } catch (const geoattn::Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("N grid: ", 0), 0u) << what;  // library errors name no flag: the CLI adds "--n"
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}
}  // namespace

TEST(Grid, AllIsEveryN) {
  EXPECT_EQ(parse_n_grid("all", 5), range(1, 5));
  EXPECT_EQ(parse_n_grid("all", 1), Grid{1});
  EXPECT_EQ(parse_n_grid("all", 1024).size(), 1024u);
}

TEST(Grid, DefaultIsCutAtTAndEndsWithT) {
  Grid expected = range(1, 16);
  expected.push_back(20);
  EXPECT_EQ(parse_n_grid("default", 20), expected);
  EXPECT_EQ(parse_n_grid("default", 16), range(1, 16));
  EXPECT_EQ(parse_n_grid("default", 1), Grid{1});

  const Grid full = parse_n_grid("default", 1024);
  EXPECT_EQ(full.size(), 28u);  // 1..16 and 24 32 48 64 96 128 192 256 384 512 768 1024
  EXPECT_EQ(full.back(), 1024);
  EXPECT_EQ(full[16], 24);
  const Grid longer = parse_n_grid("default", 2048);
  EXPECT_EQ(longer.size(), 29u);
  EXPECT_EQ(longer[27], 1024);
  EXPECT_EQ(longer.back(), 2048);
}

TEST(Grid, ListsAndRangesAreSortedAndUnique) {
  EXPECT_EQ(parse_n_grid("1:3,8,5", 20), (Grid{1, 2, 3, 5, 8}));
  EXPECT_EQ(parse_n_grid("3,1:4,4", 20), range(1, 4));
  EXPECT_EQ(parse_n_grid("2,7:7", 20), (Grid{2, 7}));
  EXPECT_EQ(parse_n_grid("20", 20), Grid{20});
  EXPECT_EQ(parse_n_grid("1:20", 20), range(1, 20));
}

TEST(Grid, BadSpecsAreOneLineErrors) {
  expect_error("0", 20, "0 is outside 1..20");
  expect_error("21", 20, "21 is outside 1..20");
  expect_error("1:21", 20, "21 is outside");
  expect_error("-1", 20, "outside");
  expect_error("3:1", 20, "'3:1' starts above its end");
  expect_error("x", 20, "'x' is not a number");
  expect_error("1,,2", 20, "not a number");
  expect_error("1:2:3", 20, "not a number");
  expect_error("1:", 20, "not a number");
  expect_error(":3", 20, "not a number");
  expect_error("4x", 20, "'4x' is not a number");
  expect_error("99999999999999999999", 20, "not a number");
  expect_error("default", 0, "at least 1");
  // Plain decimal items only: no empty grid, no space, no trailing or leading comma, no hex.
  expect_error("", 20, "'' is not a number");
  expect_error(" 2 , 7", 20, "' 2 ' is not a number");
  expect_error("1,", 20, "not a number");
  expect_error(",1", 20, "not a number");
  expect_error("0x4", 20, "'0x4' is not a number");
}
