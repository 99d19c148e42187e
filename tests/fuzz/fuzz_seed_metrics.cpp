// SPDX-License-Identifier: MIT
// kbx import of the seed's metrics.json (H800/GEAK/metrics.json), with the summary.json beside it when
// the input holds a line "%%summary" (what follows it is that file).
#include "fuzz_seed_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    auto parts = kbx_fuzz::split(kbx_fuzz::view(data, size), "\n%%summary\n", 2);
    std::map<std::filesystem::path, std::string> files = {{"H800/GEAK/metrics.json", std::string(parts[0])}};
    if (parts.size() > 1)
        files["H800/GEAK/summary.json"] = std::string(parts[1]);
    kbx::ImportOptions opt;
    opt.catalogue = &kbx_fuzz::catalogue();
    kbx_fuzz::seedImport(files, "H800/GEAK/metrics.json", opt);
    return 0;
}
