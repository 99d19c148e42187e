// SPDX-License-Identifier: MIT
// The candidate's outputs file (kbx_harness.common.write_outputs), untrusted: read with every length
// bounded by its record, checked against the reference's expectations before any tensor is loaded.
#include "compare_internal.h"

#include "taxonomy.h"

namespace kbx::worker {
namespace compare_internal {

at::Tensor materialise(std::ifstream& in, const CandidateTensor& t, bool readData)
{
    const auto dt = t.dtype.value_or(at::kByte);
    if (!readData)
        return at::empty(t.sizes, at::TensorOptions().dtype(dt).device(at::kMeta));
    const bool isBool = dt == at::kBool;
    auto x = at::empty(t.sizes, at::TensorOptions().dtype(isBool ? at::kByte : dt));
    BoundedReader r(in, t.offset, t.offset + t.nbytes);
    r.readAt(t.offset, static_cast<char*>(x.data_ptr()), t.nbytes);
    return isBool ? x.ne(0) : x;  // any byte other than 0 is true, as torch reads it
}

}  // namespace compare_internal

using namespace compare_internal;

namespace {

std::optional<at::ScalarType> dtypeFromName(const std::string& n)
{
    static const std::vector<std::pair<std::string, at::ScalarType>> k = {
        {"float32", at::kFloat}, {"float64", at::kDouble}, {"float16", at::kHalf}, {"bfloat16", at::kBFloat16},
        {"bool", at::kBool}, {"uint8", at::kByte}, {"int8", at::kChar}, {"int16", at::kShort}, {"int32", at::kInt},
        {"int64", at::kLong}, {"uint16", at::kUInt16}, {"uint32", at::kUInt32}, {"uint64", at::kUInt64},
        {"complex32", at::kComplexHalf}, {"complex64", at::kComplexFloat}, {"complex128", at::kComplexDouble},
        {"float8_e4m3fn", at::kFloat8_e4m3fn}, {"float8_e5m2", at::kFloat8_e5m2},
        {"float8_e4m3fnuz", at::kFloat8_e4m3fnuz}, {"float8_e5m2fnuz", at::kFloat8_e5m2fnuz}};
    for (const auto& [name, t] : k)
        if (name == n)
            return t;
    return std::nullopt;
}

CandidateTensor readTensor(BoundedReader& p)
{
    CandidateTensor t;
    const auto scalar = p.get<uint8_t>("scalar flag");
    if (scalar > 1)
        throw MalformedOutputs("bad scalar flag");
    t.scalar = scalar == 1;
    t.dtypeName = p.str(p.get<uint8_t>("dtype name length"), 64, "dtype name");
    t.dtype = dtypeFromName(t.dtypeName);
    const auto ndim = p.get<uint8_t>("ndim");
    if (ndim > 64)
        throw MalformedOutputs("more than 64 dimensions");
    uint64_t numel = 1;
    for (int d = 0; d < ndim; ++d) {
        const auto s = p.get<int64_t>("dimension");
        if (s < 0)
            throw MalformedOutputs("negative dimension");
        if (__builtin_mul_overflow(numel, static_cast<uint64_t>(s), &numel) || numel > (uint64_t{1} << 62))
            throw MalformedOutputs("element count overflows");
        t.sizes.push_back(s);
    }
    t.numel = numel;
    t.nbytes = p.get<uint64_t>("byte count");
    if (t.dtype) {
        uint64_t want = 0;
        if (__builtin_mul_overflow(numel, static_cast<uint64_t>(c10::elementSize(*t.dtype)), &want) || want != t.nbytes)
            throw MalformedOutputs("byte count does not match shape and dtype");
    }
    t.offset = p.pos();
    p.skip(t.nbytes, "tensor data");
    return t;
}

/// One case of kind 0 (outputs): its structure, leaves and post-call snapshots, the leaves read only
/// when their count is the reference's, the snapshots only when theirs is.
void readOutputsCase(BoundedReader& p, const CaseExpectation& e, CandidateCase& c)
{
    const auto slen = p.get<uint32_t>("structure length");
    c.structure = p.str(slen, std::max<uint64_t>(e.structure.size() + 1, 4096), "structure");
    c.structureTruncated = c.structure.size() < slen;
    c.leafCount = p.get<uint32_t>("leaf count");
    if (c.leafCount != e.leaves)
        return;  // a different count: the leaves are never read
    for (uint32_t j = 0; j < c.leafCount; ++j)
        c.leaves.push_back(readTensor(p));
    c.snapshotCount = p.get<uint32_t>("snapshot count");
    if (c.snapshotCount == e.inputs)
        for (uint32_t j = 0; j < c.snapshotCount; ++j)
            c.snapshots.push_back(readTensor(p));
}

}  // namespace

std::string cleanText(const std::string& in, size_t maxBytes)
{
    // Valid UTF-8 only (JSON needs it), control characters other than newline and tab dropped, at
    // most maxBytes bytes (cut at a character boundary) with an ellipsis when cut.
    std::string out;
    out.reserve(std::min(in.size(), maxBytes) + 4);
    size_t i = 0;
    bool cut = false;
    while (i < in.size()) {
        const auto c = static_cast<unsigned char>(in[i]);
        size_t len = 1;
        bool ok = true;
        if (c < 0x80) {
            ok = c >= 0x20 ? c != 0x7f : (c == '\n' || c == '\t');
            if (!ok) {
                ++i;
                continue;
            }
        } else {
            len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
            ok = len != 0 && c != 0xC0 && c != 0xC1 && c < 0xF5 && i + len <= in.size();
            for (size_t j = 1; ok && j < len; ++j)
                ok = (static_cast<unsigned char>(in[i + j]) & 0xC0) == 0x80;
            if (ok && len == 3) {
                const auto c1 = static_cast<unsigned char>(in[i + 1]);
                ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);  // overlong, surrogates
            }
            if (ok && len == 4) {
                const auto c1 = static_cast<unsigned char>(in[i + 1]);
                ok = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
            }
            if (!ok)
                len = 1;
        }
        if (out.size() + (ok ? len : 1) > maxBytes) {
            cut = true;
            break;
        }
        if (ok)
            out.append(in, i, len);
        else
            out.push_back('?');
        i += len;
    }
    if (cut)
        out += "\xE2\x80\xA6";  // …
    return out;
}

std::string callFailureClass(const std::string& claimed)
{
    // The label the candidate harness itself writes for a case skipped after a sticky CUDA error.
    // A gap of Triton's CPU interpreter is never the candidate's word: only our canary's gaps grant
    // that (core/interpgaps), so a claimed "interpreter_unsupported" is a runtime error like any other.
    if (claimed == "skipped")
        return claimed;
    // The harness's own finding that a @triton.jit body called PyTorch (CPU interpreter): a
    // failure either way, so the claim gives a candidate nothing.
    if (claimed == "not_triton_kernel")
        return claimed;
    if (auto fc = kbx::failureClassFromString(claimed); fc && kbx::isCallFailure(*fc))
        return claimed;
    return "runtime_error";
}

std::vector<CandidateCase> readCandidateOutputs(const std::string& path, const std::vector<CaseExpectation>& expect)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw MalformedOutputs("cannot open the file");
    in.seekg(0, std::ios::end);
    const auto size = static_cast<uint64_t>(std::max<std::streamoff>(0, in.tellg()));
    BoundedReader r(in, 0, size);
    if (r.str(8, 8, "magic") != std::string("KBXOUT1\n", 8))
        throw MalformedOutputs("not a kbx outputs file (bad magic)");
    const auto n = r.get<uint32_t>("case count");
    if (n > expect.size())
        throw MalformedOutputs(std::to_string(n) + " cases for " + std::to_string(expect.size()) + " reference cases");
    std::vector<CandidateCase> cases;
    cases.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
        CandidateCase c;
        const auto kind = r.get<uint8_t>("case kind");
        const auto len = r.get<uint64_t>("case length");
        r.need(len, "case");
        BoundedReader p(in, r.pos(), r.pos() + len);
        r.skip(len, "case");
        if (kind == 1) {
            c.error = true;
            c.errorClass = p.str(p.get<uint32_t>("class length"), 64, "class");
            c.message = p.str(p.get<uint32_t>("message length"), 4000, "message");
        } else if (kind == 0) {
            readOutputsCase(p, expect[i], c);
        } else {
            throw MalformedOutputs("unknown case kind " + std::to_string(kind));
        }
        cases.push_back(std::move(c));
    }
    if (r.left() != 0)
        throw MalformedOutputs("trailing bytes after the last case");
    return cases;
}

}  // namespace kbx::worker
