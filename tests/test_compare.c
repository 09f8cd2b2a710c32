/* Tests for comparing a candidate's output with the reference's. The numbers
 * are chosen to be exact in binary (quarters, eighths) so that boundary
 * cases test the rule, not the rounding. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "parity/compare.h"

#define N(a) (sizeof(a) / sizeof *(a))
#define EPS 1e-12

/* compare_values, asserting it succeeds. */
static px_cmp cmp(const double *c, const double *r, size_t n, px_stat stat, double q,
                  double atol, double rtol)
{
    px_cmp out;
    memset(&out, 0x5a, sizeof out); /* garbage: every field must be set */
    cr_assert_eq(compare_values(c, r, n, stat, q, atol, rtol, &out), 0);
    return out;
}

/* Small arrays for the statistics: d = {0.5, 0, 1, 0.25, 0}, |r| = 1..5. */
static const double stat_r[] = {1, 2, 3, 4, 5};
static const double stat_c[] = {1.5, 2, 2, 4.25, 5};

/* Elementwise: one element, ref r, cand c. */
static int passes1(double c, double r, double atol, double rtol)
{
    return cmp(&c, &r, 1, PX_STAT_ELEMENTWISE, 0, atol, rtol).pass;
}

Test(compare, stat_names)
{
    for (int s = 0; s < PX_STAT_COUNT; s++)
        cr_expect_eq(compare_stat_from_name(compare_stat_name((px_stat)s)), s);
    cr_expect_str_eq(compare_stat_name(PX_STAT_ELEMENTWISE), "elementwise");
    cr_expect_str_eq(compare_stat_name(PX_STAT_MAX), "max");
    cr_expect_str_eq(compare_stat_name(PX_STAT_MEAN), "mean");
    cr_expect_str_eq(compare_stat_name(PX_STAT_QUANTILE), "quantile");
    cr_expect_eq(compare_stat_from_name("median"), -1);
    cr_expect_eq(compare_stat_from_name("MAX"), -1);
    cr_expect_eq(compare_stat_from_name(""), -1);
    cr_expect_eq(compare_stat_from_name(NULL), -1);
    cr_expect_str_eq(compare_stat_name((px_stat)99), "?");
}

Test(compare, identical_arrays_pass_under_every_stat)
{
    double a[] = {1, -2, 3.5, 0, NAN, -INFINITY};
    double b[N(a)];
    memcpy(b, a, sizeof a);
    for (int s = 0; s < PX_STAT_COUNT; s++) {
        px_cmp o = cmp(a, b, N(a), (px_stat)s, 0.5, 0, 0);
        cr_expect(o.pass, "%s", compare_stat_name((px_stat)s));
        cr_expect(o.identical);
        cr_expect_eq(o.value, 0);
        cr_expect_eq(o.threshold, 0);
        cr_expect_eq(o.smallest_atol, 0);
        cr_expect_eq(o.n_failing, 0);
        cr_expect_lt(o.worst, N(a));
    }
}

Test(compare, signed_zeros_pass_but_are_not_identical)
{
    double a[] = {0.0, 1}, b[] = {-0.0, 1};
    px_cmp o = cmp(a, b, 2, PX_STAT_ELEMENTWISE, 0, 0, 0);
    cr_expect(o.pass);
    cr_expect_not(o.identical);
    cr_expect_eq(o.value, 0);
}

Test(compare, elementwise_atol_dominated_boundary)
{
    /* rtol 0: tolerance is atol = 0.25 around ref 2 */
    cr_expect(passes1(2.25, 2, 0.25, 0));            /* exactly at the edge: <= */
    cr_expect(passes1(2.2421875, 2, 0.25, 0));       /* 2^-7 inside */
    cr_expect_not(passes1(2.2578125, 2, 0.25, 0));   /* 2^-7 outside */
    cr_expect_not(passes1(nextafter(2.25, 3), 2, 0.25, 0)); /* one ulp outside */
    cr_expect(passes1(1.75, 2, 0.25, 0));            /* below the reference too */
    cr_expect_not(passes1(1.7421875, 2, 0.25, 0));
    /* a small rtol does not change which side an atol-sized gap is on */
    cr_expect(passes1(0.25, 0, 0.25, 0.5));          /* |ref| = 0: rtol adds nothing */
    cr_expect_not(passes1(0.2578125, 0, 0.25, 0.5));
}

Test(compare, elementwise_rtol_dominated_boundary)
{
    /* atol 0, rtol 1/8: tolerance is |ref| / 8 = 1 around ref 8 (or -8) */
    cr_expect(passes1(9, 8, 0, 0.125));
    cr_expect(passes1(8.9921875, 8, 0, 0.125));
    cr_expect_not(passes1(9.0078125, 8, 0, 0.125));
    cr_expect(passes1(7, 8, 0, 0.125));
    cr_expect_not(passes1(6.9921875, 8, 0, 0.125));
    cr_expect(passes1(-9, -8, 0, 0.125));
    cr_expect_not(passes1(-9.0078125, -8, 0, 0.125));
    /* the tolerance scales with the reference, not the candidate: the
     * pair that failed above passes with the roles swapped */
    cr_expect(passes1(8, 9.0078125, 0, 0.125));      /* tolerance 9.0078125 / 8 */
}

/* The allowances add (torch.testing.assert_close, numpy.isclose): a |Δ|
 * between max(atol, rtol|ref|) and atol + rtol|ref| passes. Before issue
 * 38 the rule was the max, and each of these failed. */
Test(compare, atol_and_rtol_add)
{
    /* ref 8, atol 1/2, rtol 1/8: max 1, sum 1.5 */
    cr_expect(passes1(9.25, 8, 0.5, 0.125));
    cr_expect(passes1(9.5, 8, 0.5, 0.125));           /* exactly at the edge */
    cr_expect(passes1(6.5, 8, 0.5, 0.125));
    cr_expect_not(passes1(9.5078125, 8, 0.5, 0.125)); /* 2^-7 outside */
    double r = 8, c = 9.25;
    px_cmp o = cmp(&c, &r, 1, PX_STAT_ELEMENTWISE, 0, 0.5, 0.125);
    cr_expect_eq(o.threshold, 1.5);
    cr_expect_eq(o.smallest_atol, 0.25);
    /* the statistics too: max |d| 1 against 0.25 + 0.125 * 5 */
    o = cmp(stat_c, stat_r, 5, PX_STAT_MAX, 0, 0.5, 0.125);
    cr_expect(o.pass);
    cr_expect_eq(o.threshold, 1.125);
}

Test(compare, elementwise_fields)
{
    double r[] = {1, 8, -4}, c[] = {1, 9.5, -4};
    px_cmp o = cmp(c, r, 3, PX_STAT_ELEMENTWISE, 0, 0, 0.125);
    /* d = {0, 1.5, 0}; d - |r|/8 = {-1/8, 1/2, -1/2} */
    cr_expect_not(o.pass);
    cr_expect_not(o.identical);
    cr_expect_eq(o.value, 1.5);
    cr_expect_eq(o.worst, 1);
    cr_expect_eq(o.threshold, 1);
    cr_expect_eq(o.smallest_atol, 0.5, "rtol covers 1 of the 1.5; atol covers the rest");
    cr_expect_eq(o.n_failing, 1);
    cr_expect(cmp(c, r, 3, PX_STAT_ELEMENTWISE, 0, 0.5, 0.125).pass);
    cr_expect_not(cmp(c, r, 3, PX_STAT_ELEMENTWISE, 0, 0.4921875, 0.125).pass);
}

Test(compare, elementwise_worst_is_largest_excess_not_largest_difference)
{
    double r[] = {100, 1}, c[] = {101, 1.5};
    px_cmp o = cmp(c, r, 2, PX_STAT_ELEMENTWISE, 0, 0, 0.125);
    /* d = {1, 0.5}; excess = {1 - 12.5, 0.5 - 0.125} */
    cr_expect_eq(o.value, 1);
    cr_expect_eq(o.worst, 1);
    cr_expect_eq(o.threshold, 0.125);
    cr_expect_eq(o.smallest_atol, 0.375);
    cr_expect_eq(o.n_failing, 1);
    cr_expect_not(o.pass);
}

Test(compare, elementwise_counts_failing_elements)
{
    double r[] = {0, 0, 0, 0, 0}, c[] = {1, -1, 0.25, 2, 0.5};
    px_cmp o = cmp(c, r, 5, PX_STAT_ELEMENTWISE, 0, 0.5, 0);
    cr_expect_eq(o.n_failing, 3);
    cr_expect_eq(o.worst, 3);
    cr_expect_eq(o.value, 2);
    cr_expect_eq(o.threshold, 0.5);
    cr_expect_eq(o.smallest_atol, 2);
}


Test(compare, max_stat)
{
    px_cmp o = cmp(stat_c, stat_r, 5, PX_STAT_MAX, 0, 0.25, 0.125);
    cr_expect_eq(o.value, 1);
    cr_expect_eq(o.threshold, 0.875, "0.25 + 0.125 * 5");
    cr_expect_not(o.pass);
    cr_expect_eq(o.n_failing, 1);
    cr_expect_eq(o.worst, 2);
    cr_expect_eq(o.smallest_atol, 0.375);
    o = cmp(stat_c, stat_r, 5, PX_STAT_MAX, 0, 1, 0.125);
    cr_expect(o.pass);
    cr_expect_eq(o.n_failing, 0);
    o = cmp(stat_c, stat_r, 5, PX_STAT_MAX, 0, 0, 0.25); /* 1 <= 5/4 */
    cr_expect(o.pass);
    cr_expect_eq(o.smallest_atol, 0);
}

Test(compare, mean_stat)
{
    /* mean d = 1.75 / 5 = 0.35, mean |r| = 3 */
    px_cmp o = cmp(stat_c, stat_r, 5, PX_STAT_MEAN, 0, 0, 0.125);
    cr_expect_float_eq(o.value, 0.35, EPS);
    cr_expect_eq(o.threshold, 0.375);
    cr_expect(o.pass);
    cr_expect_eq(o.smallest_atol, 0);
    cr_expect_eq(o.worst, 2);
    o = cmp(stat_c, stat_r, 5, PX_STAT_MEAN, 0, 0, 0.1);
    cr_expect_float_eq(o.threshold, 0.3, EPS);
    cr_expect_not(o.pass);
    cr_expect_eq(o.n_failing, 1);
    cr_expect_float_eq(o.smallest_atol, 0.05, EPS);
}

Test(compare, quantile_stat)
{
    /* sorted d = {0, 0, 0.25, 0.5, 1}; sorted |r| = {1, 2, 3, 4, 5};
     * q = 0.9: position 3.6, so d: 0.5 + 0.6 * 0.5, |r|: 4 + 0.6 */
    static const struct {
        double q, d, r;
    } want[] = {{0, 0, 1}, {0.25, 0, 2}, {0.5, 0.25, 3}, {0.9, 0.8, 4.6}, {1, 1, 5}};
    double r[5], c[5];
    memcpy(r, stat_r, sizeof r);
    memcpy(c, stat_c, sizeof c);
    for (size_t i = 0; i < N(want); i++) {
        px_cmp o = cmp(c, r, 5, PX_STAT_QUANTILE, want[i].q, 0, 0);
        cr_expect_float_eq(o.value, want[i].d, EPS, "q=%g", want[i].q);
        cr_expect_eq(o.threshold, 0);
        cr_expect_float_eq(o.smallest_atol, want[i].d, EPS);
        cr_expect_eq(o.worst, 2);
        o = cmp(c, r, 5, PX_STAT_QUANTILE, want[i].q, 0, 1);
        cr_expect_float_eq(o.threshold, want[i].r, EPS, "q=%g", want[i].q);
        cr_expect(o.pass);
    }
    px_cmp o = cmp(c, r, 5, PX_STAT_QUANTILE, 0.9, 0, 0.125);
    cr_expect_float_eq(o.threshold, 0.575, EPS);
    cr_expect_not(o.pass);
    cr_expect_float_eq(o.smallest_atol, 0.225, EPS);
    /* sorting worked on copies */
    cr_expect_arr_eq(r, stat_r, sizeof r);
    cr_expect_arr_eq(c, stat_c, sizeof c);
}

/* xorshift64*: the same numbers on every libc. */
static double rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* smallest_atol as atol passes (exactly, and with 1e-12 to spare); a little
 * less fails. */
static int check_smallest_atol(const double *c, const double *r, size_t n, px_stat s,
                               double rtol)
{
    px_cmp o = cmp(c, r, n, s, 0.9, 0, rtol);
    double sa = o.smallest_atol;
    cr_assert(isfinite(sa) && sa >= 0);
    cr_expect(cmp(c, r, n, s, 0.9, sa, rtol).pass, "%s rtol %g", compare_stat_name(s), rtol);
    cr_expect(cmp(c, r, n, s, 0.9, sa + 1e-12, rtol).pass);
    if (sa == 0)
        return 0;
    double less = fmax(0, sa * 0.99 - 1e-12);
    cr_expect_not(cmp(c, r, n, s, 0.9, less, rtol).pass, "%s rtol %g sa %g",
                  compare_stat_name(s), rtol, sa);
    return 1;
}

Test(compare, smallest_atol_is_the_boundary)
{
    static const double rtols[] = {0, 1e-6, 1e-4, 1e-3, 1e-2, 0.3};
    static const double scales[] = {1e-7, 1e-3, 1, 100};
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    double r[37], c[37];
    int nonzero = 0;
    for (int round = 0; round < 8; round++) {
        double scale = scales[round % N(scales)];
        for (size_t i = 0; i < N(r); i++) {
            r[i] = (rnd(&seed) * 2 - 1) * 20;
            c[i] = r[i] + (rnd(&seed) * 2 - 1) * scale * 1e-2;
        }
        for (size_t k = 0; k < N(rtols); k++)
            for (int s = 0; s < PX_STAT_COUNT; s++)
                nonzero += check_smallest_atol(c, r, N(r), (px_stat)s, rtols[k]);
    }
    cr_expect_gt(nonzero, 50, "too few cases with smallest_atol > 0 (%d)", nonzero);
}

Test(compare, nan_against_number_fails)
{
    double r[] = {1, 2, 3}, c[] = {1, NAN, 3};
    for (int s = 0; s < PX_STAT_COUNT; s++) {
        px_cmp o = cmp(c, r, 3, (px_stat)s, 0.5, 1e9, 1e9);
        cr_expect_not(o.pass, "%s", compare_stat_name((px_stat)s));
        cr_expect_not(o.identical);
        cr_expect(isinf(o.value) && o.value > 0);
        cr_expect(isinf(o.smallest_atol));
        cr_expect_eq(o.worst, 1);
        cr_expect_eq(o.n_failing, 1);
    }
    /* the reference's NaN too, and the count adds to ordinary failures */
    double r2[] = {NAN, 2, 3, 4}, c2[] = {1, NAN, 3, 5};
    px_cmp o = cmp(c2, r2, 4, PX_STAT_ELEMENTWISE, 0, 0, 0);
    cr_expect_not(o.pass);
    cr_expect_eq(o.worst, 0);
    cr_expect_eq(o.n_failing, 3);
}

Test(compare, matching_non_finite_values_count_as_equal)
{
    double r[] = {NAN, 1, INFINITY, -INFINITY, 3}, c[] = {NAN, 1.25, INFINITY, -INFINITY, 3};
    px_cmp o = cmp(c, r, 5, PX_STAT_ELEMENTWISE, 0, 0.25, 0);
    cr_expect(o.pass);
    cr_expect_not(o.identical);
    cr_expect_eq(o.value, 0.25);
    cr_expect_eq(o.worst, 1);
    /* left out of the statistics: max |r| is 3, not inf */
    o = cmp(c, r, 5, PX_STAT_MAX, 0, 0, 0.0625);
    cr_expect_eq(o.value, 0.25);
    cr_expect_eq(o.threshold, 0.1875);
    cr_expect_not(o.pass);
    o = cmp(c, r, 5, PX_STAT_MEAN, 0, 0, 0); /* over 2 elements, not 5 */
    cr_expect_eq(o.value, 0.125);
    /* nothing comparable at all */
    double n1 = NAN, n2 = -NAN;
    o = cmp(&n1, &n2, 1, PX_STAT_QUANTILE, 0.5, 0.5, 0);
    cr_expect(o.pass);
    cr_expect_eq(o.value, 0);
    cr_expect_eq(o.threshold, 0.5);
}

Test(compare, mismatched_infinities_fail)
{
    double r[] = {INFINITY, 0}, c[] = {-INFINITY, 0};
    cr_expect_not(cmp(c, r, 2, PX_STAT_ELEMENTWISE, 0, 1, 1).pass);
    cr_expect_not(cmp(c, r, 2, PX_STAT_MAX, 0, 1, 1).pass);
    double c2[] = {1e308, 0};
    px_cmp o = cmp(c2, r, 2, PX_STAT_MEAN, 0, INFINITY, 0);
    cr_expect_not(o.pass);
    cr_expect_eq(o.worst, 0);
    cr_expect(isinf(o.value));
}

Test(compare, bad_arguments)
{
    double a[] = {1, 2}, b[] = {1, 2};
    px_cmp o;
    cr_expect_eq(compare_values(a, b, 0, PX_STAT_ELEMENTWISE, 0, 0, 0, &o), -1);
    cr_expect_eq(compare_values(NULL, NULL, 0, PX_STAT_MAX, 0, 0, 0, &o), -1);
    cr_expect_eq(compare_values(a, b, 2, PX_STAT_QUANTILE, -0.1, 0, 0, &o), -1);
    cr_expect_eq(compare_values(a, b, 2, PX_STAT_QUANTILE, 1.1, 0, 0, &o), -1);
    cr_expect_eq(compare_values(a, b, 2, PX_STAT_QUANTILE, NAN, 0, 0, &o), -1);
    cr_expect_eq(compare_values(a, b, 2, PX_STAT_QUANTILE, 1, 0, 0, &o), 0);
    cr_expect_eq(compare_values(a, b, 2, PX_STAT_MAX, 7, 0, 0, &o), 0); /* q unused */
    cr_expect_eq(compare_values(a, b, 2, PX_STAT_MAX, 0, -1e-9, 0, &o), -1);
    cr_expect_eq(compare_values(a, b, 2, PX_STAT_MAX, 0, 0, -1e-9, &o), -1);
    cr_expect_eq(compare_values(a, b, 2, PX_STAT_MAX, 0, NAN, 0, &o), -1);
    cr_expect_eq(compare_values(a, b, 2, (px_stat)7, 0, 0, 0, &o), -1);
}

Test(compare, rms)
{
    double a[] = {3, 4}, z[] = {0, 0};
    cr_expect_float_eq(compare_rms(a, z, 2), sqrt(12.5), EPS);
    cr_expect_float_eq(compare_rms(z, a, 2), sqrt(12.5), EPS);
    cr_expect_eq(compare_rms(a, a, 2), 0);
    double big[] = {3e200, 4e200};
    cr_expect_float_eq(compare_rms(big, z, 2) / 1e200, sqrt(12.5), EPS); /* no overflow */
    double tiny[] = {3e-200, 4e-200};
    cr_expect_float_eq(compare_rms(tiny, z, 2) / 1e-200, sqrt(12.5), EPS); /* no underflow */
    double nan[] = {NAN, 0}, inf[] = {INFINITY, 0};
    cr_expect(isnan(compare_rms(nan, z, 2)));
    cr_expect(isinf(compare_rms(inf, z, 2)));
    cr_expect_eq(compare_rms(inf, inf, 2), 0);
    cr_expect(isnan(compare_rms(a, z, 0)));
}

Test(compare, oracle_rule)
{
    double oracle[] = {1, 2, 3, 4};
    double ref[] = {1.125, 1.875, 3.125, 3.875};   /* rms 1/8 */
    double near[] = {1.25, 1.75, 3.25, 4.25};      /* rms 1/4: ratio 2 */
    double far[] = {1.5, 1.5, 3.5, 3.5};           /* rms 1/2: ratio 4 */
    int pass = -1;
    double ratio = 0;
    cr_assert_eq(compare_oracle(near, ref, oracle, 4, 2, &pass, &ratio), 0);
    cr_expect_eq(pass, 1);
    cr_expect_eq(ratio, 2);
    cr_assert_eq(compare_oracle(far, ref, oracle, 4, 2, &pass, &ratio), 0);
    cr_expect_eq(pass, 0);
    cr_expect_eq(ratio, 4);
    cr_assert_eq(compare_oracle(near, ref, oracle, 4, 1.5, &pass, &ratio), 0);
    cr_expect_eq(pass, 0);
    /* a candidate better than the reference passes even with k < 1 */
    cr_assert_eq(compare_oracle(ref, near, oracle, 4, 1, &pass, &ratio), 0);
    cr_expect_eq(pass, 1);
    cr_expect_eq(ratio, 0.5);
}

Test(compare, oracle_rule_with_exact_reference)
{
    double oracle[] = {1, 2, 3, 4}, same[] = {1, 2, 3, 4};
    double off[] = {1, 2, 3, 4 + 0x1p-40};
    int pass = -1;
    double ratio = 0;
    cr_assert_eq(compare_oracle(same, oracle, oracle, 4, 2, &pass, &ratio), 0);
    cr_expect_eq(pass, 1);
    cr_expect_eq(ratio, 1);
    cr_assert_eq(compare_oracle(off, oracle, oracle, 4, 1e9, &pass, &ratio), 0);
    cr_expect_eq(pass, 0);
    cr_expect(isinf(ratio) && ratio > 0);
}

Test(compare, oracle_bad_arguments_and_non_finite)
{
    double o[] = {1, 2}, r[] = {1.5, 2}, c[] = {NAN, 2}, bad[] = {1, INFINITY};
    int pass = -1;
    double ratio = 0;
    cr_expect_eq(compare_oracle(r, r, o, 0, 2, &pass, &ratio), -1);
    cr_expect_eq(compare_oracle(r, r, o, 2, -1, &pass, &ratio), -1);
    cr_expect_eq(compare_oracle(r, r, o, 2, NAN, &pass, &ratio), -1);
    cr_expect_eq(compare_oracle(r, bad, o, 2, 2, &pass, &ratio), -1);
    cr_assert_eq(compare_oracle(c, r, o, 2, 2, &pass, &ratio), 0);
    cr_expect_eq(pass, 0);
    cr_expect(isinf(ratio));
}
