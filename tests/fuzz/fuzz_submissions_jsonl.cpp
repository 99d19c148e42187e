// SPDX-License-Identifier: MIT
// kbx eval's JSONL sources ({"predict", "file"|"instruction"}, corpus records {"task_id", "after_code"}):
// any input either loads or is refused with kbx::ImportError; loaded submissions name known tasks.
#include "fuzz_common.h"
#include "importers.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto& cat = kbx_fuzz::catalogue();
    const std::vector<std::pair<std::filesystem::path, std::string>> files = {{"submissions.jsonl", std::string(kbx_fuzz::view(data, size))}};
    try {
        std::vector<std::string> skipped;
        for (const auto& s : kbx::parseSubmissions(files, cat, &skipped)) {
            if (!cat.find(s.taskId))
                kbx_fuzz::fail("a submission names a task the catalogue does not have");
            if (s.origin.rfind("submissions.jsonl:", 0) != 0)
                kbx_fuzz::fail("a JSONL submission's origin is not file:line");
        }
        kbx::parseSubmissions(files, cat);  // the strict variant: unknown tasks refuse the source
    } catch (const kbx::ImportError&) {
    }
    return 0;
}
