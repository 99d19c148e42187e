// SPDX-License-Identifier: MIT
// kbx import of the seed's round-transition corpus (JSONL of {task_id, from_round, to_round, kind,
// before, after, before_code, after_code}); as corpus.jsonl, or (odd sizes) as corpus.json, whose
// format is then told from the content.
#include "fuzz_seed_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::filesystem::path path = size % 2 ? "seed/corpus.json" : "seed/corpus.jsonl";
    kbx::ImportOptions opt;
    opt.catalogue = &kbx_fuzz::catalogue();
    opt.method = "GEAK";
    kbx_fuzz::seedImport({{path, std::string(kbx_fuzz::view(data, size))}}, path, opt);
    return 0;
}
