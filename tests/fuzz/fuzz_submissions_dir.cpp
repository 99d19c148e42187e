// SPDX-License-Identifier: MIT
// kbx eval's directory sources, in memory: the input is up to 16 files separated by lines
// "%%file PATH"; each file's extension picks its format (.py or .jsonl), files are read in path order.
#include "fuzz_common.h"
#include "importers.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto& cat = kbx_fuzz::catalogue();
    std::vector<std::pair<std::filesystem::path, std::string>> files;
    for (auto part : kbx_fuzz::split(kbx_fuzz::view(data, size), "%%file ", 17)) {
        auto [path, content] = kbx_fuzz::firstLine(part);
        if (!path.empty())
            files.emplace_back(path, std::move(content));
    }
    try {
        std::vector<std::string> skipped;
        for (const auto& s : kbx::parseSubmissions(files, cat, &skipped))
            if (!cat.find(s.taskId))
                kbx_fuzz::fail("a submission names a task the catalogue does not have");
    } catch (const kbx::ImportError&) {
    }
    return 0;
}
