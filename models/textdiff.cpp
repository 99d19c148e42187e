// SPDX-License-Identifier: MIT
#include "textdiff.h"

#include <vector>

namespace kbx::gui {

QList<DiffLine> diffLines(const QStringList& a, const QStringList& b)
{
    QList<DiffLine> out;
    qsizetype pre = 0;
    while (pre < a.size() && pre < b.size() && a[pre] == b[pre])
        ++pre;
    qsizetype suf = 0;
    while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
        ++suf;
    for (qsizetype i = 0; i < pre; ++i)
        out.append({DiffLine::Same, int(i + 1), int(i + 1), a[i]});
    const qsizetype n = a.size() - pre - suf;
    const qsizetype m = b.size() - pre - suf;
    if (n > 0 || m > 0) {
        if (n * m > 20000LL * 20000LL / 4) {
            for (qsizetype i = 0; i < n; ++i)
                out.append({DiffLine::Removed, int(pre + i + 1), 0, a[pre + i]});
            for (qsizetype j = 0; j < m; ++j)
                out.append({DiffLine::Added, 0, int(pre + j + 1), b[pre + j]});
        } else {
            // lcs[i][j] = LCS length of a[pre+i..] and b[pre+j..]
            const auto W = static_cast<std::size_t>(m + 1);
            std::vector<int> lcs(static_cast<std::size_t>(n + 1) * W, 0);
            for (qsizetype i = n - 1; i >= 0; --i)
                for (qsizetype j = m - 1; j >= 0; --j) {
                    const auto k = static_cast<std::size_t>(i) * W + static_cast<std::size_t>(j);
                    lcs[k] = a[pre + i] == b[pre + j] ? lcs[k + W + 1] + 1 : std::max(lcs[k + W], lcs[k + 1]);
                }
            qsizetype i = 0, j = 0;
            while (i < n || j < m) {
                const auto k = static_cast<std::size_t>(i) * W + static_cast<std::size_t>(j);
                if (i < n && j < m && a[pre + i] == b[pre + j]) {
                    out.append({DiffLine::Same, int(pre + i + 1), int(pre + j + 1), a[pre + i]});
                    ++i;
                    ++j;
                } else if (i < n && (j == m || lcs[k + W] >= lcs[k + 1])) {
                    out.append({DiffLine::Removed, int(pre + i + 1), 0, a[pre + i]});
                    ++i;
                } else {
                    out.append({DiffLine::Added, 0, int(pre + j + 1), b[pre + j]});
                    ++j;
                }
            }
        }
    }
    for (qsizetype s = suf; s > 0; --s)
        out.append({DiffLine::Same, int(a.size() - s + 1), int(b.size() - s + 1), a[a.size() - s]});
    return out;
}

static QStringList splitLines(const QString& t)
{
    if (t.isEmpty())
        return {};
    QStringList l = t.split(QLatin1Char('\n'));
    if (t.endsWith(QLatin1Char('\n')))
        l.removeLast();
    return l;
}

QList<DiffLine> diffTexts(const QString& a, const QString& b)
{
    return diffLines(splitLines(a), splitLines(b));
}

}  // namespace kbx::gui
