// SPDX-License-Identifier: MIT
// The comparison role (kbx-worker compare): the reference bundle (ours) against the candidate's
// outputs file (untrusted), case by case: structure, leaves (compare_leaf.cpp), input mutation.
#include "compare_internal.h"

#include <torch/csrc/jit/serialization/pickle.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace kbx::worker {
using namespace compare_internal;

namespace {

c10::IValue loadPickle(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot open " + path);
    std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return torch::jit::pickle_load(data);
}

c10::IValue field(const c10::IValue& dict, const std::string& key)
{
    auto d = dict.toGenericDict();
    auto it = d.find(key);
    if (it == d.end())
        return c10::IValue();
    return it->value();
}

std::vector<at::Tensor> tensorList(const c10::IValue& v)
{
    std::vector<at::Tensor> out;
    if (v.isNone())
        return out;
    if (v.isTensorList()) {
        for (const auto& t : v.toTensorVector())
            out.push_back(t);
        return out;
    }
    for (const auto& e : v.toListRef())
        out.push_back(e.toTensor());
    return out;
}

std::vector<bool> boolList(const c10::IValue& v)
{
    std::vector<bool> out;
    if (v.isNone())
        return out;
    if (v.isBoolList()) {
        for (bool b : v.toBoolList())
            out.push_back(b);
        return out;
    }
    for (const auto& e : v.toListRef())
        out.push_back(e.toBool());
    return out;
}

std::vector<int64_t> intList(const c10::IValue& v)
{
    std::vector<int64_t> out;
    if (v.isNone())
        return out;
    if (v.isIntList())
        return v.toIntVector();
    for (const auto& e : v.toListRef())
        out.push_back(e.toInt());
    return out;
}

/// One case of the reference bundle: what the candidate's case is held against.
struct RefCase {
    std::string name, structure;
    std::vector<at::Tensor> tensors, inputs;
    std::vector<bool> scalar;
    std::vector<int64_t> mutable_;
    std::vector<std::string> inputNames;
};

/// The reference bundle is ours: a failure to read it is a harness error (thrown). Structure and
/// expectations come from it alone; the candidate's file only supplies values.
std::vector<RefCase> loadReference(const std::string& refFile, std::vector<CaseExpectation>& expect)
{
    auto ref = loadPickle(refFile);
    auto refCases = field(ref, "cases").toListRef();
    std::vector<RefCase> refs;
    for (const auto& rc : refCases) {
        RefCase r;
        r.name = field(rc, "name").toStringRef();
        r.structure = field(rc, "structure").toStringRef();
        r.tensors = tensorList(field(rc, "tensors"));
        r.scalar = boolList(field(rc, "scalar"));
        r.inputs = tensorList(field(rc, "inputs"));
        r.mutable_ = intList(field(rc, "mutable"));
        if (auto names = field(rc, "input_names"); !names.isNone())
            for (const auto& e : names.toListRef())
                r.inputNames.push_back(e.toStringRef());
        expect.push_back({r.structure, r.tensors.size(), r.inputs.size()});
        refs.push_back(std::move(r));
    }
    return refs;
}

/// The failure that decides a case: the first by precedence, else the first found.
void keepWorse(LeafVerdict& verdict, const LeafVerdict& lv)
{
    static const std::vector<std::string> precedence = {"shape_mismatch", "dtype_mismatch", "nan_inf_mismatch",
                                                        "value_mismatch", "input_mutated"};
    auto rank = [&](const std::string& f) { return std::find(precedence.begin(), precedence.end(), f) - precedence.begin(); };
    if (!lv.ok && (verdict.ok || rank(lv.failureClass) < rank(verdict.failureClass))) {
        verdict.ok = false;
        verdict.failureClass = lv.failureClass;
        verdict.evidence = lv.evidence;
    }
}

/// Every output leaf against its reference leaf; each leaf's evidence to `leaves`.
void compareOutputLeaves(const RefCase& rc, const CandidateCase& cc, std::ifstream& in, const Contract& c, LeafVerdict& verdict,
                         nlohmann::json& leaves)
{
    for (size_t j = 0; j < rc.tensors.size(); ++j) {
        const auto& rt = rc.tensors[j];
        const auto& ct = cc.leaves[j];
        // The reference's flag alone: equal structures have their S (number) leaves in the same places.
        const bool scalar = j < rc.scalar.size() && rc.scalar[j];
        LeafVerdict lv;
        if (!ct.dtype) {
            // A dtype we do not read (e.g. quantized): never loaded.
            lv.ok = false;
            if (!scalar && at::IntArrayRef(ct.sizes) != rt.sizes()) {
                lv.failureClass = "shape_mismatch";
                lv.evidence = {{"ref_shape", shapeOf(rt)}, {"cand_shape", ct.sizes}};
            } else {
                lv.failureClass = "dtype_mismatch";
                lv.evidence = {{"ref_dtype", dtypeName(rt.scalar_type())}, {"cand_dtype", cleanText(ct.dtypeName, 64)}};
            }
        } else {
            const bool readData = scalar ? (ct.numel == 1 && rt.numel() == 1)
                                         : (at::IntArrayRef(ct.sizes) == rt.sizes() && *ct.dtype == rt.scalar_type());
            lv = compareLeaf(rt, materialise(in, ct, readData), c, scalar);
        }
        lv.evidence["leaf"] = j;
        leaves.push_back(lv.evidence);
        keepWorse(verdict, lv);
    }
}

/// Mutation: every tensor the call received (positional and keyword) that the op may not modify
/// must be unchanged; the reference says how many there are.
void checkInputsUnchanged(const RefCase& rc, const CandidateCase& cc, std::ifstream& in, LeafVerdict& verdict)
{
    auto mutated = [&](size_t k, nlohmann::json ev) {
        LeafVerdict lv;
        lv.ok = false;
        lv.failureClass = "input_mutated";
        ev["input_tensor"] = k;
        if (k < rc.inputNames.size())
            ev["input"] = rc.inputNames[k];
        lv.evidence = std::move(ev);
        return lv;
    };
    if (verdict.ok && cc.snapshotCount != rc.inputs.size()) {
        auto lv = mutated(0, {{"reason", "post-call snapshots of " + std::to_string(cc.snapshotCount) + " tensors for the " +
                                             std::to_string(rc.inputs.size()) + " tensors the call received"}});
        lv.evidence.erase("input_tensor");
        lv.evidence.erase("input");
        keepWorse(verdict, lv);
    }
    for (size_t k = 0; verdict.ok && k < rc.inputs.size() && k < cc.snapshots.size(); ++k) {
        if (std::find(rc.mutable_.begin(), rc.mutable_.end(), static_cast<int64_t>(k)) != rc.mutable_.end())
            continue;
        const auto& inp = rc.inputs[k];
        const auto& sn = cc.snapshots[k];
        if (!sn.dtype || *sn.dtype != inp.scalar_type() || at::IntArrayRef(sn.sizes) != inp.sizes()) {
            keepWorse(verdict, mutated(k, {{"reason", "the tensor's shape or dtype changed in the call"},
                                           {"ref_shape", shapeOf(inp)}, {"cand_shape", sn.sizes},
                                           {"ref_dtype", dtypeName(inp.scalar_type())}, {"cand_dtype", cleanText(sn.dtypeName, 64)}}));
            break;
        }
        auto after = materialise(in, sn, true);
        if (!sameTensor(inp, after)) {
            auto changed = at::ne(at::nan_to_num(inp.to(at::kDouble), 0.0), at::nan_to_num(after.to(at::kDouble), 0.0)).sum().item<int64_t>();
            keepWorse(verdict, mutated(k, {{"changed_elements", changed}}));
            break;
        }
    }
}

/// One case that the candidate ran: its structure, its leaves, its inputs after the call.
LeafVerdict compareCase(const RefCase& rc, const CandidateCase& cc, std::ifstream& in, const Contract& c, nlohmann::json& leaves)
{
    LeafVerdict verdict;
    if (cc.structure != rc.structure) {
        verdict.ok = false;
        verdict.failureClass = "shape_mismatch";
        verdict.evidence = {{"reason", "output structure differs"}, {"ref_structure", rc.structure},
                            {"cand_structure", cleanText(cc.structure, 4000) + (cc.structureTruncated ? "\xE2\x80\xA6" : "")}};
    } else if (cc.leafCount != rc.tensors.size()) {
        verdict.ok = false;
        verdict.failureClass = "shape_mismatch";
        verdict.evidence = {{"reason", "output leaf count differs"}, {"ref_leaves", rc.tensors.size()}, {"cand_leaves", cc.leafCount}};
    } else {
        compareOutputLeaves(rc, cc, in, c, verdict, leaves);
        checkInputsUnchanged(rc, cc, in, verdict);
    }
    return verdict;
}

/// One case's JSON; true when it passed.
bool judgeCase(size_t i, const RefCase& rc, const std::vector<CandidateCase>& cand, std::ifstream& in, const Contract& c, nlohmann::json& cj)
{
    cj = {{"index", i}, {"name", rc.name}};
    if (i >= cand.size()) {
        cj["status"] = "error";
        cj["failure_class"] = "crash";
        cj["evidence"] = {{"reason", "no output for this case"}};
        return false;
    }
    const auto& cc = cand[i];
    if (cc.error) {
        cj["status"] = "error";
        cj["failure_class"] = callFailureClass(cc.errorClass);
        cj["evidence"] = {{"message", cleanText(cc.message, 2000)}};
        if (cj["failure_class"] != cc.errorClass)
            cj["evidence"]["claimed_class"] = cleanText(cc.errorClass, 64);
        return false;
    }
    LeafVerdict verdict;
    nlohmann::json leaves = nlohmann::json::array();
    try {
        verdict = compareCase(rc, cc, in, c, leaves);
    } catch (const std::exception& e) {
        // Whatever in the candidate's data we cannot process is its failure, never a crash.
        cj["status"] = "error";
        cj["failure_class"] = "runtime_error";
        cj["evidence"] = {{"reason", "candidate outputs unprocessable: " + cleanText(e.what(), 300)}};
        return false;
    }
    cj["status"] = verdict.ok ? "pass" : "fail";
    if (!verdict.ok)
        cj["failure_class"] = verdict.failureClass;
    cj["evidence"] = verdict.ok ? nlohmann::json{{"leaves", leaves}} : verdict.evidence;
    return verdict.ok;
}

}  // namespace

nlohmann::json compareFiles(const std::string& refFile, const std::string& candFile, const Contract& c)
{
    std::vector<CaseExpectation> expect;
    const auto refs = loadReference(refFile, expect);
    nlohmann::json out = {{"cases", nlohmann::json::array()}};
    // The candidate's process wrote its outputs file and could have written anything there: an
    // unreadable file is the candidate's failure, never a reason to leave it unjudged.
    std::vector<CandidateCase> cand;
    std::string unreadable;
    try {
        cand = readCandidateOutputs(candFile, expect);
    } catch (const std::exception& e) {
        unreadable = e.what();
        if (unreadable.empty())
            unreadable = "unknown error";
    }
    if (!unreadable.empty()) {
        for (size_t i = 0; i < refs.size(); ++i)
            out["cases"].push_back({{"index", i}, {"name", refs[i].name}, {"status", "error"},
                                    {"failure_class", "runtime_error"},
                                    {"evidence", {{"reason", "candidate outputs unreadable: " + cleanText(unreadable, 300)}}}});
        out["pass"] = false;
        return out;
    }
    std::ifstream in(candFile, std::ios::binary);
    bool allPass = true;
    for (size_t i = 0; i < refs.size(); ++i) {
        nlohmann::json cj;
        allPass = judgeCase(i, refs[i], cand, in, c, cj) && allPass;
        out["cases"].push_back(cj);
    }
    out["pass"] = allPass;
    return out;
}

}  // namespace kbx::worker
