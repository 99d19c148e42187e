// SPDX-License-Identifier: MIT
#pragma once
#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <string>

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

/// Compares the reference bundle and the candidate outputs (both torch.save files); returns
/// {"cases": [...], "pass": bool, "failure_class": ...}.
nlohmann::json compareFiles(const std::string& refFile, const std::string& candFile, const Contract& c);

}  // namespace kbx::worker
