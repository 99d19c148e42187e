// SPDX-License-Identifier: MIT
// kbx import of the seed's summary.json (A100/GEAK/summary.json), with a metrics.json beside it when
// the input holds a line "%%metrics" (what follows it is that file).
#include "fuzz_seed_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    auto parts = kbx_fuzz::split(kbx_fuzz::view(data, size), "\n%%metrics\n", 2);
    std::map<std::filesystem::path, std::string> files = {{"A100/GEAK/summary.json", std::string(parts[0])}};
    if (parts.size() > 1)
        files["A100/GEAK/metrics.json"] = std::string(parts[1]);
    kbx::ImportOptions opt;
    opt.catalogue = &kbx_fuzz::catalogue();
    if (size % 3 == 0)
        opt.method = "fuzz";  // --method given
    kbx_fuzz::seedImport(files, "A100/GEAK/summary.json", opt);
    return 0;
}
