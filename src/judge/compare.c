#include "parity/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const stat_names[PX_STAT_COUNT] = {
    [PX_STAT_ELEMENTWISE] = "elementwise",
    [PX_STAT_MAX] = "max",
    [PX_STAT_MEAN] = "mean",
    [PX_STAT_QUANTILE] = "quantile",
};

int compare_stat_from_name(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < PX_STAT_COUNT; i++)
        if (!strcmp(stat_names[i], name))
            return i;
    return -1;
}

const char *compare_stat_name(px_stat s)
{
    return (unsigned)s < PX_STAT_COUNT ? stat_names[s] : "?";
}

enum pair_kind {
    PAIR_FINITE,   /* both finite: compared by the statistic */
    PAIR_SAME,     /* NaN/NaN or the same infinity: equal, but has no magnitude */
    PAIR_MISMATCH, /* a NaN or an infinity the other side does not have */
};

static enum pair_kind pair_kind(double c, double r)
{
    if (isfinite(c) && isfinite(r))
        return PAIR_FINITE;
    if ((isnan(c) && isnan(r)) || (isinf(c) && c == r))
        return PAIR_SAME;
    return PAIR_MISMATCH;
}

/* One expression for the tolerance, as the contract states it and as
 * torch.testing.assert_close and numpy.isclose read atol and rtol: the
 * allowances add, |d| <= atol + rtol * |r|, r the reference's. */
static double tolerance(double atol, double rtol, double r)
{
    return atol + rtol * fabs(r);
}

/* The smallest atol a with d <= a + covered as this file computes it:
 * d - covered, nudged up where rounding the sum back leaves it an ulp
 * short (atol + rtol|r| is what tolerance() compares against). */
static double atol_needed(double d, double covered)
{
    double a = d > covered ? d - covered : 0;
    while (a + covered < d)
        a = nextafter(a, INFINITY);
    return a;
}

static void compare_elementwise(const double *c, const double *r, size_t n, double atol,
                                double rtol, px_cmp *out)
{
    double worst_margin = -INFINITY, need = 0;
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        if (pair_kind(c[i], r[i]) != PAIR_FINITE)
            continue;
        double d = fabs(c[i] - r[i]), covered = rtol * fabs(r[i]);
        if (d > out->value)
            out->value = d;
        if (!any || d - covered > worst_margin) {
            worst_margin = d - covered;
            out->worst = i;
            any = 1;
        }
        /* Within atol + rtol|r| exactly when atol covers what rtol|r|
         * leaves of |d|: the largest such rest is the smallest atol. */
        if (d > covered && d - covered > need)
            need = d - covered;
        if (d > tolerance(atol, rtol, r[i]))
            out->n_failing++;
    }
    out->pass = out->n_failing == 0;
    out->threshold = any ? tolerance(atol, rtol, r[out->worst]) : atol;
    /* A second pass: the rest computed above can be an ulp short of
     * passing once added back, and nudging it for one element never
     * undoes another's (the sum is monotone in atol). */
    for (size_t i = 0; need > 0 && i < n; i++)
        if (pair_kind(c[i], r[i]) == PAIR_FINITE)
            need = fmax(need, atol_needed(fabs(c[i] - r[i]), rtol * fabs(r[i])));
    out->smallest_atol = need;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* numpy's default ("linear") quantile of sorted x[0..m-1], including its
 * lerp, which works from the nearer end so that the result stays monotone
 * in q and exact at the order statistics. */
static double quantile_sorted(const double *x, size_t m, double q)
{
    double h = (double)(m - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo >= m - 1)
        return x[m - 1];
    double t = h - (double)lo, a = x[lo], b = x[lo + 1], diff = b - a;
    return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/* The q-quantiles of |d| and |r| over the finite pairs; -1 on no memory. */
static int quantiles(const double *c, const double *r, size_t n, double q, double *sd,
                     double *sr)
{
    double *ad = malloc(n * sizeof *ad), *ar = malloc(n * sizeof *ar);
    if (!ad || !ar) {
        free(ad);
        free(ar);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (pair_kind(c[i], r[i]) == PAIR_FINITE) {
            ad[m] = fabs(c[i] - r[i]);
            ar[m++] = fabs(r[i]);
        }
    if (m) {
        qsort(ad, m, sizeof *ad, cmp_double);
        qsort(ar, m, sizeof *ar, cmp_double);
        *sd = quantile_sorted(ad, m, q);
        *sr = quantile_sorted(ar, m, q);
    }
    free(ad);
    free(ar);
    return 0;
}

/* The statistic of |d| (into *sd) and of |r| (into *sr) over the finite
 * pairs, 0 when there are none; worst = argmax |d|. -1 on no memory. */
static int summarize(const double *c, const double *r, size_t n, px_stat stat, double q,
                     double *sd, double *sr, size_t *worst)
{
    double max_d = 0, max_r = 0, sum_d = 0, sum_r = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (pair_kind(c[i], r[i]) != PAIR_FINITE)
            continue;
        double d = fabs(c[i] - r[i]), a = fabs(r[i]);
        if (!m || d > max_d) {
            max_d = d;
            *worst = i;
        }
        max_r = a > max_r ? a : max_r;
        sum_d += d;
        sum_r += a;
        m++;
    }
    *sd = *sr = 0;
    if (!m)
        return 0;
    if (stat == PX_STAT_MAX) {
        *sd = max_d;
        *sr = max_r;
    } else if (stat == PX_STAT_MEAN) {
        *sd = sum_d / (double)m;
        *sr = sum_r / (double)m;
    } else {
        return quantiles(c, r, n, q, sd, sr);
    }
    return 0;
}

static int compare_stat(const double *c, const double *r, size_t n, px_stat stat, double q,
                        double atol, double rtol, px_cmp *out)
{
    double sd, sr;
    if (summarize(c, r, n, stat, q, &sd, &sr, &out->worst) < 0)
        return -1;
    out->value = sd;
    out->threshold = atol + rtol * sr;
    out->pass = sd <= out->threshold;
    out->n_failing = !out->pass;
    out->smallest_atol = atol_needed(sd, rtol * sr);
    return 0;
}

int compare_values(const double *cand, const double *ref, size_t n, px_stat stat, double q,
                   double atol, double rtol, px_cmp *out)
{
    /* !(x >= 0) also catches NaN */
    if (!n || (unsigned)stat >= PX_STAT_COUNT || !(atol >= 0) || !(rtol >= 0))
        return -1;
    if (stat == PX_STAT_QUANTILE && !(q >= 0 && q <= 1))
        return -1;
    memset(out, 0, sizeof *out);
    if (stat == PX_STAT_ELEMENTWISE)
        compare_elementwise(cand, ref, n, atol, rtol, out);
    else if (compare_stat(cand, ref, n, stat, q, atol, rtol, out) < 0)
        return -1;
    size_t n_bad = 0;
    for (size_t i = n; i-- > 0;)
        if (pair_kind(cand[i], ref[i]) == PAIR_MISMATCH) {
            n_bad++;
            out->worst = i; /* ends at the first */
        }
    if (n_bad) {
        out->pass = 0;
        out->value = out->smallest_atol = INFINITY;
        out->n_failing = stat == PX_STAT_ELEMENTWISE ? out->n_failing + n_bad : 1;
    }
    out->identical = !memcmp(cand, ref, n * sizeof *cand);
    return 0;
}

/* |a - b|, with the pairs compare_values counts as equal giving 0 rather
 * than inf - inf = NaN. */
static double abs_diff(double a, double b)
{
    return pair_kind(a, b) == PAIR_SAME ? 0 : fabs(a - b);
}

double compare_rms(const double *a, const double *b, size_t n)
{
    if (!n)
        return NAN;
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double d = abs_diff(a[i], b[i]);
        if (isnan(d))
            return NAN;
        m = d > m ? d : m;
    }
    if (m == 0 || isinf(m))
        return m;
    /* scale by the largest difference: squaring differences past ~1e154
     * would overflow, and ones below ~1e-162 would vanish */
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double x = abs_diff(a[i], b[i]) / m;
        s += x * x;
    }
    return m * sqrt(s / (double)n);
}

int compare_oracle(const double *cand, const double *ref, const double *oracle, size_t n,
                   double k, int *pass, double *ratio)
{
    if (!n || !(k >= 0))
        return -1;
    double rms_r = compare_rms(ref, oracle, n);
    if (!isfinite(rms_r))
        return -1;
    double rms_c = compare_rms(cand, oracle, n);
    if (!isfinite(rms_c)) {
        *pass = 0;
        *ratio = INFINITY;
    } else if (rms_r == 0) {
        *pass = rms_c == 0;
        *ratio = rms_c == 0 ? 1 : INFINITY;
    } else {
        *pass = rms_c <= k * rms_r;
        *ratio = rms_c / rms_r;
    }
    return 0;
}

double compare_norm(const double *v, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double a = fabs(v[i]);
        if (isnan(a))
            return NAN;
        m = a > m ? a : m;
    }
    if (m == 0 || isinf(m))
        return m;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (v[i] / m) * (v[i] / m);
    return m * sqrt(s);
}

double compare_cosine(const double *a, const double *b, size_t n)
{
    double na = compare_norm(a, n), nb = compare_norm(b, n);
    if (!n || !(na > 0) || !(nb > 0) || !isfinite(na) || !isfinite(nb))
        return NAN;
    double dot = 0;
    for (size_t i = 0; i < n; i++)
        dot += (a[i] / na) * (b[i] / nb);
    return dot > 1 ? 1 : dot < -1 ? -1 : dot;
}
