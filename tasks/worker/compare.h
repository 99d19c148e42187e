// SPDX-License-Identifier: MIT
#pragma once
#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbx::worker {

/// Result of comparing one output leaf (or one case) against the reference.
struct LeafVerdict {
    bool ok = true;
    std::string failureClass;  ///< taxonomy id when !ok
    nlohmann::json evidence = nlohmann::json::object();
};

/// The precision contract of a task, from the task index (TaskInfo::contract()).
struct Contract {
    std::string comparison = "allclose";
    nlohmann::json tolerance = nlohmann::json::object();
    nlohmann::json quantization;
    nlohmann::json uniform;
    bool signedZeros = false;  ///< a zero's sign must match the reference's (META "signed_zeros")
    std::pair<double, double> tol(at::ScalarType t) const;  ///< (atol, rtol) for a dtype
};

std::string dtypeName(at::ScalarType t);

/// Compares one candidate leaf with its reference leaf under the contract. `scalarLeaf` marks a
/// Python number on either side (then only the value is compared, not the dtype).
LeafVerdict compareLeaf(const at::Tensor& ref, const at::Tensor& cand, const Contract& c, bool scalarLeaf);

/// Bitwise-or-NaN equality for the mutation check.
bool sameTensor(const at::Tensor& a, const at::Tensor& b);

/// The candidate's outputs file is untrusted: anything that does not parse is this error.
struct MalformedOutputs : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// What the reference says one case holds: the candidate's counts are checked against it before
/// anything is read.
struct CaseExpectation {
    std::string structure;
    size_t leaves = 0;  ///< output leaves
    size_t inputs = 0;  ///< tensors the call receives (positional, then keyword by name)
};

/// One tensor of the candidate's outputs file: its header, and where its bytes are.
struct CandidateTensor {
    bool scalar = false;
    std::string dtypeName;
    std::optional<at::ScalarType> dtype;  ///< empty: a dtype the comparison does not read
    std::vector<int64_t> sizes;
    uint64_t numel = 0, nbytes = 0, offset = 0;
};

struct CandidateCase {
    bool error = false;
    std::string errorClass, message;   ///< error: as the candidate's process wrote them (capped)
    std::string structure;             ///< at most max(ref size + 1, 4096) bytes
    bool structureTruncated = false;
    uint64_t leafCount = 0, snapshotCount = 0;
    std::vector<CandidateTensor> leaves, snapshots;  ///< read only when the counts match the reference
};

/// Reads the candidate's outputs file (kbx_harness.common.write_outputs: a length-prefixed binary
/// format) against the reference's expectations. Throws MalformedOutputs.
std::vector<CandidateCase> readCandidateOutputs(const std::string& path, const std::vector<CaseExpectation>& expect);

/// A candidate-supplied per-case error class as a call class of the taxonomy (else runtime_error).
std::string callFailureClass(const std::string& claimed);

/// Valid UTF-8, no control characters but newline and tab, at most maxBytes bytes (+ an ellipsis).
std::string cleanText(const std::string& in, size_t maxBytes);

/// Compares the reference bundle (torch.save, ours) and the candidate outputs (our binary format);
/// returns {"cases": [...], "pass": bool}. Never throws on the candidate's data.
nlohmann::json compareFiles(const std::string& refFile, const std::string& candFile, const Contract& c);

}  // namespace kbx::worker
