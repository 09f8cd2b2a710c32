/* Comparing a candidate environment's output tensor (logits, as doubles) with
 * the reference environment's: by a tolerance on each element, by a tolerance
 * on one statistic of the differences, or against a higher-precision oracle.
 * Nothing here modifies its inputs. */
#ifndef PARITY_COMPARE_H
#define PARITY_COMPARE_H

#include <stddef.h>

typedef enum px_stat {
    PX_STAT_ELEMENTWISE, /* every element within atol + rtol * |ref| */
    PX_STAT_MAX,         /* max |d| within atol + rtol * max |ref| */
    PX_STAT_MEAN,        /* mean |d| within atol + rtol * mean |ref| */
    PX_STAT_QUANTILE,    /* q-quantile of |d| within atol + rtol * that of |ref| */
    PX_STAT_COUNT
} px_stat;

/* -1 when unknown; names: "elementwise", "max", "mean", "quantile". */
int compare_stat_from_name(const char *name);
/* "?" when s is not a px_stat. */
const char *compare_stat_name(px_stat s);

typedef struct px_cmp {
    int pass;             /* 1 when within tolerance */
    int identical;        /* 1 when every element is bit-equal (then pass) */
    double value;         /* the statistic of |cand - ref| (elementwise: max |d| over elements) */
    double threshold;     /* what value was compared with (elementwise: the worst element's
                             atol + rtol * |ref|) */
    double smallest_atol; /* the smallest atol that would have passed, rtol unchanged */
    size_t worst;         /* elementwise: index of the largest |d| - rtol * |ref|;
                             otherwise: index of the largest |d| */
    size_t n_failing;     /* elementwise: elements out of tolerance; else 0 or 1 */
} px_cmp;

/* Compare cand with ref (n doubles each), d = cand - ref.
 *
 * PX_STAT_ELEMENTWISE is the contract's rule: element i fails when
 * |d_i| > atol + rtol * |ref_i| (the allowances add, as torch.testing's
 * assert_close and numpy.isclose add them); pass when none fails.
 * The other statistics compare stat_i |d_i| with atol + rtol * stat_i |ref_i|;
 * the quantile interpolates linearly between order statistics, as numpy's
 * default does.
 *
 * Non-finite values: NaN against NaN, or an infinity against the same-signed
 * infinity, counts as equal and is left out of every statistic. Any other pair
 * with a NaN or an infinity in it (NaN vs number, inf vs -inf, inf vs number)
 * fails the comparison: pass = 0, value = INFINITY, smallest_atol = INFINITY,
 * worst = the first such index, and 0 is returned; the threshold and, for
 * elementwise, n_failing still describe the comparable elements (n_failing
 * counts the mismatched ones too).
 *
 * smallest_atol is exact in the arithmetic used here: comparing again with
 * atol = smallest_atol passes (max(0, |d| - rtol|ref|) can miss by an ulp
 * after rounding, so it is nudged up until it does).
 *
 * Returns 0, or -1 when n == 0, q is outside [0, 1] (quantile only), atol or
 * rtol is negative or NaN, or memory runs out (quantile sorts copies). */
int compare_values(const double *cand, const double *ref, size_t n, px_stat stat, double q,
                   double atol, double rtol, px_cmp *out);

/* Root mean square of a - b; NaN when n == 0 or a difference is NaN,
 * INFINITY when a difference is infinite. Does not overflow on large finite
 * differences. */
double compare_rms(const double *a, const double *b, size_t n);

/* The PyTorch accuracy-minifier rule: the candidate passes when
 * rms(cand - oracle) <= k * rms(ref - oracle), the oracle being the same
 * computation at higher precision. When the reference matches the oracle
 * exactly (rms 0) the candidate must match it exactly too. Fills
 * *ratio = rms_c / rms_r (INFINITY when rms_r is 0 and rms_c > 0, 1 when both
 * are 0). A candidate whose rms is NaN or infinite fails with ratio INFINITY.
 * Returns 0, or -1 when n == 0, k is negative or NaN, or the reference's rms
 * is NaN or infinite (it gives no yardstick). */
int compare_oracle(const double *cand, const double *ref, const double *oracle, size_t n,
                   double k, int *pass, double *ratio);

/* The L2 norm of v (scaled, so that it neither overflows nor vanishes);
 * NaN when an element is NaN, INFINITY when one is infinite. */
double compare_norm(const double *v, size_t n);

/* The cosine of the angle between a and b: a.b / (|a| |b|), in double,
 * clamped to [-1, 1]; NaN when n is 0, a norm is 0 or an element is not
 * finite (no direction to compare). An embedding's vectors are compared
 * with it, and a query's search ranks documents by it. */
double compare_cosine(const double *a, const double *b, size_t n);

#endif
