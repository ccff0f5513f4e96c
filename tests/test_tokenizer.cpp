// The sentencepiece tokenizer on real models. This binary links LibTorch on purpose: loading
// Debian's sentencepiece next to libtorch_cpu crashes unless io/tokenizer.cpp isolates it.
#include "geoattn/io/tokenizer.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "geoattn/util/error.h"
#include "test_util.h"

namespace geoattn::io {
using geoattn::testing::error_of;

namespace {

using Ids = std::vector<int64_t>;

const std::string kTokenizers = std::string(GEOATTN_FIXTURES) + "/tokenizers";
const std::string kLlama2 = kTokenizers + "/llama2.tokenizer.model";
const std::string kMistral = kTokenizers + "/mistral-v1.tokenizer.model";
const std::string kStories = std::string(GEOATTN_SOURCE_DIR) + "/models/stories260K";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The message of the geoattn::Error that `action` throws; fails the test if it throws none.

TEST(Tokenizer, LibTorchSharesTheProcess) {
  EXPECT_FLOAT_EQ(torch::ones({2}).sum().item<float>(), 2.0F);
  const auto tokenizer = Tokenizer::load(kLlama2);
  EXPECT_EQ(tokenizer->vocab_size(), 32000);
  EXPECT_FLOAT_EQ(torch::ones({3}).sum().item<float>(), 3.0F);
}

TEST(Tokenizer, Llama2HelloWorld) {
  const auto tokenizer = Tokenizer::load(kLlama2);
  EXPECT_EQ(tokenizer->path(), kLlama2);
  EXPECT_EQ(tokenizer->vocab_size(), 32000);
  EXPECT_EQ(tokenizer->bos_id(), 1);
  EXPECT_EQ(tokenizer->eos_id(), 2);
  EXPECT_EQ(tokenizer->encode("Hello world"), (Ids{15043, 3186}));
  EXPECT_EQ(tokenizer->decode({15043, 3186}), "Hello world");
  EXPECT_TRUE(tokenizer->encode("").empty());
}

TEST(Tokenizer, Llama2RoundTripsNewlinesAndBytes) {
  const auto tokenizer = Tokenizer::load(kLlama2);
  const std::string text = "Once upon a time,\n  there was a llama \xF0\x9F\xA6\x99 caf\xC3\xA9.";
  const Ids ids = tokenizer->encode(text);
  EXPECT_EQ(ids[0], 9038);  // "▁Once"
  EXPECT_EQ(tokenizer->decode(ids), text);
}

TEST(Tokenizer, Stories260KMatchesTheGreedyReference) {
  const auto tokenizer = Tokenizer::load(kStories + "/tokenizer.model");
  EXPECT_EQ(tokenizer->vocab_size(), 512);
  EXPECT_EQ(tokenizer->bos_id(), 1);
  EXPECT_EQ(tokenizer->eos_id(), 2);
  // greedy-200.json is {"ids": [BOS, 200 generated ids], "note": ...}.
  const Ids reference =
      nlohmann::json::parse(read_file(kStories + "/greedy-200.json")).at("ids").get<Ids>();
  ASSERT_EQ(reference.size(), 201U);
  ASSERT_EQ(reference.front(), 1);
  const Ids generated(reference.begin() + 1, reference.end());
  // The text file ends without a newline: it is exactly the decoded 200 ids.
  const std::string text = read_file(kStories + "/greedy-200.txt");
  ASSERT_FALSE(text.empty());
  ASSERT_NE(text.back(), '\n');
  EXPECT_EQ(tokenizer->encode(text), generated);
  EXPECT_EQ(tokenizer->decode(generated), text);
}

TEST(Tokenizer, MistralV1) {
  const auto tokenizer = Tokenizer::load(kMistral);
  EXPECT_EQ(tokenizer->vocab_size(), 32000);
  EXPECT_EQ(tokenizer->bos_id(), 1);
  EXPECT_EQ(tokenizer->eos_id(), 2);
  EXPECT_EQ(tokenizer->encode("Hello world"), (Ids{22557, 1526}));
  EXPECT_EQ(tokenizer->decode({22557, 1526}), "Hello world");
}

TEST(Tokenizer, DecodeRejectsIdsOutsideTheVocabulary) {
  const auto tokenizer = Tokenizer::load(kStories + "/tokenizer.model");
  const std::string message = error_of([&] { tokenizer->decode({5, 512}); });
  EXPECT_NE(message.find(tokenizer->path()), std::string::npos) << message;
  EXPECT_NE(message.find("512"), std::string::npos) << message;
  EXPECT_NE(error_of([&] { tokenizer->decode({-1}); }), "(no error)");
}

TEST(Tokenizer, MissingFileIsAnError) {
  const std::string path = kTokenizers + "/no-such.model";
  const std::string message = error_of([&] { Tokenizer::load(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("no such"), std::string::npos) << message;
}

TEST(Tokenizer, ConfigJsonIsNotAModel) {
  const std::string path = std::string(GEOATTN_FIXTURES) + "/hf-tiny/llama/config.json";
  const std::string message = error_of([&] { Tokenizer::load(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("not a sentencepiece model"), std::string::npos) << message;
}

TEST(Tokenizer, DirectoryIsNotAModel) {
  const std::string path = kTokenizers;
  const std::string message = error_of([&] { Tokenizer::load(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
}

}  // namespace
}  // namespace geoattn::io
