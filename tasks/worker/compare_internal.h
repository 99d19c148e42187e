// SPDX-License-Identifier: MIT
#pragma once
// Shared by the comparison's source files (compare*.cpp); not an interface of the worker.
#include "compare.h"

#include <algorithm>
#include <fstream>
#include <type_traits>

namespace kbx::worker::compare_internal {

nlohmann::json shapeOf(const at::Tensor& t);
/// The index of a flat position in a tensor of these sizes.
nlohmann::json unravel(int64_t flat, at::IntArrayRef sizes);
double num(const at::Tensor& t);
/// JSON has no NaN/Inf: non-finite evidence values travel as the strings "nan", "inf", "-inf".
nlohmann::json jnum(double v);

/// META comparison "uniform": the candidate's sample (as float64) is a uniform sample in
/// [low, high) of `dtype`: range, distinct values, moments and KS test, independence (compare_uniform.cpp).
LeafVerdict compareUniform(const at::Tensor& c64, const Contract& c, at::ScalarType dtype, at::IntArrayRef shape);

/// Bounded reads from the candidate's outputs file (untrusted bytes): every read is checked against
/// the end of the enclosing record, so no length in the file can make us read, skip or allocate
/// beyond it.
class BoundedReader {
public:
    BoundedReader(std::ifstream& in, uint64_t pos, uint64_t end) : m_in(in), m_pos(pos), m_end(end) {}
    uint64_t pos() const { return m_pos; }
    uint64_t end() const { return m_end; }
    uint64_t left() const { return m_end - m_pos; }
    void need(uint64_t n, const char* what) const
    {
        if (n > left())
            throw MalformedOutputs(std::string(what) + " runs past the end of its record");
    }
    template <class T>
    T get(const char* what)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        need(sizeof(T), what);
        T v{};
        readAt(m_pos, reinterpret_cast<char*>(&v), sizeof v);
        m_pos += sizeof v;
        return v;
    }
    /// A string of `len` bytes, of which the first `keep` are returned.
    std::string str(uint64_t len, uint64_t keep, const char* what)
    {
        need(len, what);
        std::string s(static_cast<size_t>(std::min(len, keep)), '\0');
        readAt(m_pos, s.data(), s.size());
        m_pos += len;
        return s;
    }
    void skip(uint64_t n, const char* what)
    {
        need(n, what);
        m_pos += n;
    }
    void readAt(uint64_t at, char* dst, uint64_t n)
    {
        if (n == 0)
            return;
        m_in.clear();
        m_in.seekg(static_cast<std::streamoff>(at));
        m_in.read(dst, static_cast<std::streamsize>(n));
        if (!m_in || static_cast<uint64_t>(m_in.gcount()) != n)
            throw MalformedOutputs("truncated file");
    }

private:
    std::ifstream& m_in;
    uint64_t m_pos, m_end;
};

/// The candidate's tensor as a real tensor (its bytes read) when `readData` (it has the shape and
/// dtype the reference expects, so its size is bounded by the reference's), else as a meta tensor
/// of its claimed shape and dtype, which compareLeaf can reject for shape or dtype without any data.
at::Tensor materialise(std::ifstream& in, const CandidateTensor& t, bool readData);

}  // namespace kbx::worker::compare_internal
