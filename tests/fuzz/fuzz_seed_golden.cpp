// SPDX-License-Identifier: MIT
// kbx import of a golden timing file, golden_results/<gpu>/<task>.json: the first input line is the
// task's file stem (e.g. "relu"; names with a '.' are left out as the seed does), the rest the file.
#include "fuzz_seed_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    auto [stem, content] = kbx_fuzz::firstLine(kbx_fuzz::view(data, size), 64);
    if (stem.empty() || stem.find('/') != std::string::npos || stem.find('\0') != std::string::npos)
        stem = "relu";
    const std::filesystem::path path = "golden_results/h800/" + stem + ".json";
    kbx::ImportOptions opt;
    opt.catalogue = &kbx_fuzz::catalogue();
    kbx_fuzz::seedImport({{path, content}}, path, opt);
    return 0;
}
