// The text of a token id, for results that name tokens (the anchors of geoattn sinks).
#include <filesystem>
#include <fstream>
#include <memory>

#include "cli.h"
#include "geoattn/io/tokenizer.h"
#include "geoattn/util/json_parse.h"

namespace geoattn::cli {

namespace {
// tokenizer.json's vocabulary (model.vocab and added_tokens) as id -> entry, byte-level BPE's
// markers for a space and a newline shown as themselves; empty when unreadable.
std::map<int64_t, std::string> json_vocabulary(const std::string& path) {
  std::map<int64_t, std::string> out;
  std::ifstream in(path);
  if (!in) return out;
  note_input(path);
  const auto j = parse_json(nullptr, in);
  if (!j.is_object()) return out;
  auto put = [&out](int64_t id, std::string text) {
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"\u0120", " "}, {"\u010a", "\n"}})
      for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    out[id] = std::move(text);
  };
  if (j.contains("model") && j["model"].is_object() && j["model"].contains("vocab") && j["model"]["vocab"].is_object())
    for (const auto& [token, id] : j["model"]["vocab"].items())
      if (id.is_number_integer()) put(id.get<int64_t>(), token);
  if (j.contains("added_tokens") && j["added_tokens"].is_array())
    for (const auto& t : j["added_tokens"])
      if (t.is_object() && t.contains("id") && t["id"].is_number_integer() && t.contains("content") && t["content"].is_string())
        put(t["id"].get<int64_t>(), t["content"].get<std::string>());
  return out;
}
}  // namespace

std::function<std::string(int64_t)> token_text_for(const io::Checkpoint& checkpoint) {
  const int64_t bos = checkpoint.config.bos_id;
  if (!checkpoint.tokenizer_path.empty()) {
    std::shared_ptr<io::Tokenizer> tokenizer = io::Tokenizer::load(checkpoint.tokenizer_path);
    return [tokenizer, bos](int64_t id) {
      const std::string text = tokenizer->decode({id});
      return !text.empty() ? text : id == bos || id == tokenizer->bos_id() ? std::string("<s>") : "<" + std::to_string(id) + ">";
    };
  }
  auto vocabulary = std::make_shared<std::map<int64_t, std::string>>(
      json_vocabulary((std::filesystem::path(checkpoint.dir) / "tokenizer.json").string()));
  return [vocabulary](int64_t id) {
    const auto it = vocabulary->find(id);
    return it != vocabulary->end() ? it->second : "<" + std::to_string(id) + ">";
  };
}

}  // namespace geoattn::cli
