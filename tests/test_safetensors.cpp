// safetensors reading, writing and header validation (pure C++).
#include "geoattn/io/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>

#include "geoattn/io/safetensors_writer.h"
#include "geoattn/util/error.h"
#include "test_util.h"

using namespace geoattn;
using namespace geoattn::io;
using geoattn::testing::safetensors_bytes;
using geoattn::testing::TempDir;
using geoattn::testing::write_file;

namespace {

// Expects SafetensorsFile(path) to throw an Error whose one-line message contains `needle`.
void expect_rejected(const std::string& path, const std::string& needle) {
  try {
    SafetensorsFile file(path);
    FAIL() << "accepted " << path;
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
}

}  // namespace

TEST(Safetensors, WriteThenReadRoundTrip) {
  TempDir dir;
  const std::vector<float> a = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, 8.0f};
  const std::vector<int64_t> b = {4, 5};
  write_safetensors(dir / "x.safetensors",
                    {{"a", Dtype::F32, {2, 3}, a.data()}, {"b", Dtype::I64, {2}, b.data()}}, {{"k", "v"}});
  SafetensorsFile file(dir / "x.safetensors");
  ASSERT_EQ(file.header().tensors.size(), 2u);
  EXPECT_EQ(file.header().metadata.at("k"), "v");
  EXPECT_EQ(file.header().data_start % 8, 0u);
  const TensorInfo* ta = file.header().find("a");
  ASSERT_NE(ta, nullptr);
  EXPECT_EQ(ta->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(ta->numel(), 6);
  const float* pa = reinterpret_cast<const float*>(file.data(*ta));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(pa[i], a[i]);
  const int64_t* pb = reinterpret_cast<const int64_t*>(file.data(*file.header().find("b")));
  EXPECT_EQ(pb[0], 4);
  EXPECT_EQ(pb[1], 5);
}

// Tensors made row by row (TensorBlob::fill_row), written a row of each at a time, between a
// streamed and an in-memory tensor: the same file, byte for byte, as the same values in memory.
TEST(Safetensors, RowByRowTensorsWriteTheSameBytes) {
  TempDir dir;
  std::vector<int64_t> c(3 * 4 * 5), d(3 * 2);
  std::vector<double> e(3 * 7);
  for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<int64_t>(i * 31 % 17) - 8;
  for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<int64_t>(i) * 1000;
  for (size_t i = 0; i < e.size(); ++i) e[i] = 0.5 * static_cast<double>(i) - 3;
  const std::vector<float> head = {1.0f, 2.0f}, tail = {9.0f};
  TensorBlob streamed{"head", Dtype::F32, {2}, nullptr, {}};
  streamed.stream = [&](std::ostream& out) { out.write(reinterpret_cast<const char*>(head.data()), 8); };
  const auto rows_of = [](std::string name, Dtype dtype, std::vector<int64_t> shape, const void* all, size_t row_bytes) {
    TensorBlob t{std::move(name), dtype, std::move(shape), nullptr, {}};
    t.rows = 3;
    t.fill_row = [all, row_bytes](int64_t r, void* dst) {
      std::memcpy(dst, static_cast<const char*>(all) + static_cast<size_t>(r) * row_bytes, row_bytes);
    };
    return t;
  };
  write_safetensors(dir / "rows.safetensors",
                    {streamed, rows_of("c", Dtype::I64, {3, 4, 5}, c.data(), 20 * 8),
                     rows_of("d", Dtype::I64, {3, 2}, d.data(), 2 * 8), rows_of("e", Dtype::F64, {3, 7}, e.data(), 7 * 8),
                     {"tail", Dtype::F32, {1}, tail.data()}},
                    {{"k", "v"}});
  write_safetensors(dir / "plain.safetensors",
                    {{"head", Dtype::F32, {2}, head.data()}, {"c", Dtype::I64, {3, 4, 5}, c.data()},
                     {"d", Dtype::I64, {3, 2}, d.data()}, {"e", Dtype::F64, {3, 7}, e.data()},
                     {"tail", Dtype::F32, {1}, tail.data()}},
                    {{"k", "v"}});
  EXPECT_EQ(geoattn::testing::read_file(dir / "rows.safetensors"), geoattn::testing::read_file(dir / "plain.safetensors"));
  // A tensor that is not `rows` equal parts is refused, naming it.
  TensorBlob odd = rows_of("odd", Dtype::I64, {4}, c.data(), 8);
  EXPECT_THROW(write_safetensors(dir / "odd.safetensors", {odd}), Error);
}

TEST(Safetensors, ReadsTheHuggingFaceFixture) {
  SafetensorsFile file(geoattn::testing::fixture("hf-tiny/llama/reference.safetensors"));
  const TensorInfo* attn = file.header().find("attn.0");
  ASSERT_NE(attn, nullptr);
  EXPECT_EQ(attn->dtype, Dtype::F32);
  EXPECT_EQ(attn->shape, (std::vector<int64_t>{4, 20, 20}));
  EXPECT_EQ(file.header().metadata.at("architecture"), "LlamaForCausalLM");
}

TEST(Safetensors, RejectsTruncatedFile) {
  TempDir dir;
  std::string bytes = safetensors_bytes(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 16);
  write_file(dir / "t.safetensors", bytes.substr(0, bytes.size() - 4));
  expect_rejected(dir / "t.safetensors", "past the end of the data");
}

TEST(Safetensors, RejectsHeaderLengthPastTheEnd) {
  TempDir dir;
  std::string bytes = safetensors_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4);
  bytes[0] = static_cast<char>(0xff);  // header length 255 + ... > file size
  bytes[1] = static_cast<char>(0x01);
  write_file(dir / "h.safetensors", bytes);
  expect_rejected(dir / "h.safetensors", "header length");
}

TEST(Safetensors, RejectsTooShortAndNonJson) {
  TempDir dir;
  write_file(dir / "s.safetensors", "abc");
  expect_rejected(dir / "s.safetensors", "too short");
  write_file(dir / "j.safetensors", safetensors_bytes("{not json", 0));
  expect_rejected(dir / "j.safetensors", "not valid JSON");
  write_file(dir / "d.safetensors", safetensors_bytes(std::string(50000, '[') + std::string(50000, ']'), 0));
  expect_rejected(dir / "d.safetensors", "header is nested deeper than 128 levels");
  write_file(dir / "e.safetensors", "");
  expect_rejected(dir / "e.safetensors", "too short");
}

TEST(Safetensors, RejectsOverlappingOffsets) {
  TempDir dir;
  write_file(dir / "o.safetensors",
             safetensors_bytes(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                               R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                               16));
  expect_rejected(dir / "o.safetensors", "overlap");
}

TEST(Safetensors, RejectsOverlapHiddenBehindAnEmptyTensor) {
  TempDir dir;
  write_file(dir / "o.safetensors",
             safetensors_bytes(R"({"a":{"dtype":"F32","shape":[25],"data_offsets":[0,100]},)"
                               R"("z":{"dtype":"F32","shape":[0],"data_offsets":[40,40]},)"
                               R"("c":{"dtype":"F32","shape":[2],"data_offsets":[50,58]}})",
                               100));
  expect_rejected(dir / "o.safetensors", "overlap");
}

TEST(Safetensors, RejectsUnknownDtype) {
  TempDir dir;
  write_file(dir / "d.safetensors", safetensors_bytes(R"({"a":{"dtype":"F31","shape":[1],"data_offsets":[0,4]}})", 4));
  expect_rejected(dir / "d.safetensors", "unsupported dtype 'F31'");
}

TEST(Safetensors, RejectsShapeByteMismatch) {
  TempDir dir;
  write_file(dir / "m.safetensors", safetensors_bytes(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8));
  expect_rejected(dir / "m.safetensors", "12 bytes for shape x dtype F32 but data_offsets span 8");
}

TEST(Safetensors, RejectsNegativeAndHugeShapes) {
  TempDir dir;
  write_file(dir / "n.safetensors", safetensors_bytes(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4));
  expect_rejected(dir / "n.safetensors", "negative");
  write_file(dir / "g.safetensors",
             safetensors_bytes(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", 4));
  expect_rejected(dir / "g.safetensors", "too large");
}

TEST(Safetensors, RejectsBadOffsetsAndMetadata) {
  TempDir dir;
  write_file(dir / "b.safetensors", safetensors_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", 4));
  expect_rejected(dir / "b.safetensors", "begin > end");
  write_file(dir / "c.safetensors", safetensors_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", 4));
  expect_rejected(dir / "c.safetensors", "two non-negative integers");
  write_file(dir / "m.safetensors", safetensors_bytes(R"({"__metadata__":{"x":1}})", 0));
  expect_rejected(dir / "m.safetensors", "not a string");
}

TEST(TensorStore, ShardedIndexResolvesEveryTensor) {
  TempDir dir;
  const std::vector<float> x = {1, 2}, y = {3, 4, 5};
  write_safetensors(dir / "model-00001-of-00002.safetensors", {{"x", Dtype::F32, {2}, x.data()}});
  write_safetensors(dir / "model-00002-of-00002.safetensors", {{"y", Dtype::F32, {3}, y.data()}});
  write_file(dir / "model.safetensors.index.json",
             R"({"metadata":{},"weight_map":{"x":"model-00001-of-00002.safetensors","y":"model-00002-of-00002.safetensors"}})");
  TensorStore store = TensorStore::open(dir.path().string());
  EXPECT_EQ(store.files().size(), 2u);
  EXPECT_EQ(store.names(), (std::vector<std::string>{"x", "y"}));
  auto e = store.at("y");
  EXPECT_EQ(reinterpret_cast<const float*>(e.file->data(*e.info))[2], 5.0f);
  EXPECT_EQ(store.total_bytes(), 20u);
  EXPECT_THROW(store.at("z"), Error);
}

TEST(TensorStore, IndexNamingATensorTheShardLacksIsAnError) {
  TempDir dir;
  const std::vector<float> x = {1, 2};
  write_safetensors(dir / "a.safetensors", {{"x", Dtype::F32, {2}, x.data()}});
  write_file(dir / "model.safetensors.index.json", R"({"weight_map":{"x":"a.safetensors","w":"a.safetensors"}})");
  try {
    TensorStore::open(dir.path().string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'w' is listed in the index but missing"), std::string::npos) << e.what();
  }
}

TEST(TensorStore, FolderWithoutWeightsIsAnError) {
  TempDir dir;
  EXPECT_THROW(TensorStore::open(dir.path().string()), Error);
}
