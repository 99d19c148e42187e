// SPDX-License-Identifier: MIT
// kbx eval's .py sources: the first input line is the file's path (Category/stem or stem; ".py" is
// added), the rest its content (markdown fences and the seed's 146-'#' test section are stripped).
#include "fuzz_common.h"
#include "importers.h"
#include "source.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto& cat = kbx_fuzz::catalogue();
    auto [name, content] = kbx_fuzz::firstLine(kbx_fuzz::view(data, size));
    const std::vector<std::pair<std::filesystem::path, std::string>> files = {{name + ".py", content}};
    try {
        std::vector<std::string> skipped;
        const auto subs = kbx::parseSubmissions(files, cat, &skipped);
        if (subs.size() + skipped.size() != 1)
            kbx_fuzz::fail("a .py file is one submission, or one skipped");
        for (const auto& s : subs) {
            if (!cat.find(s.taskId))
                kbx_fuzz::fail("a submission names a task the catalogue does not have");
            if (s.code != kbx::cleanSubmission(content))
                kbx_fuzz::fail("a .py submission's code is not its cleaned content");
        }
    } catch (const kbx::ImportError&) {
    }
    return 0;
}
