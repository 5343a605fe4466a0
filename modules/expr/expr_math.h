/*
 * expr_math.h: the language's functions, written once over an abstract lane type and included
 * once per width (expr_scalar.c: one float; expr_lanes4.c: f32x4; expr_lanes8.c: AVX2), so the
 * scalar and the batch evaluations run the same IEEE operations in the same order and give the
 * same bits. No include guard on purpose.
 *
 * The includer defines:
 *   V, M, I          a lane of floats, of compare masks, of 32-bit integers
 *   EXPR_SFX(name)   the suffix that keeps each width's functions apart
 *   V_K(c)           every lane c
 *   V_ADD V_SUB V_MUL V_DIV V_SQRT V_NEG V_ABS V_MIN(a<b?a:b) V_MAX(a>b?a:b)
 *   M_LT M_LE M_GT M_GE M_EQ M_NE (ordered, except NE which is true for NaN) M_OR M_AND
 *   V_SEL(m, yes, no)
 *   I_K(c) I_ADD I_SUB I_AND I_OR I_XOR I_MUL I_SHL(i, n) I_SHR(i, n) (logical)
 *   V_BITS(v) V_FROM_BITS(i)   reinterpretation;  M_IPOS(i) the mask of lanes where i > 0
 *   V_FROM_I(i)      signed integer to float;  I_FROM_V(v) float to integer, truncating, for
 *                    values the callers keep inside the int32 range
 *   V_ROUND_EVEN(v)  optional: the nearest integer, ties to even (an exact operation, so any
 *                    width that has it gives the bits of the two additions used without it)
 *
 * The polynomials are the classic single-precision minimax ones (Cephes' sinf, cosf, expf,
 * logf, atanf): short, and accurate to about one unit in the last place on their intervals.
 */

/* floor, exact: truncation corrected downwards; values past 2^23 (already integers), zeros
 * (their sign kept) and NaN come back as they are. */
static inline V EXPR_SFX(floor)(V x)
{
    M small = M_AND(M_LT(V_ABS(x), V_K(8388608.0f)), M_NE(x, V_K(0.0f)));
    V safe = V_SEL(small, x, V_K(0.0f));
    V t = V_FROM_I(I_FROM_V(safe));
    t = V_SEL(M_LT(safe, t), V_SUB(t, V_K(1.0f)), t);
    return V_SEL(small, t, x);
}

/* The nearest integer of y (ties to even) for |y| <= 2^22, by adding and taking away 1.5 * 2^23:
 * two additions that round the same in every width (no rounding instruction needed). */
static inline V EXPR_SFX(round_small)(V y)
{
#ifdef V_ROUND_EVEN
    return V_ROUND_EVEN(y); /* the same integer, exactly: one instruction where the lanes have it */
#else
    return V_SUB(V_ADD(y, V_K(12582912.0f)), V_K(12582912.0f));
#endif
}

/* sin and cos from one reduction by pi/2 (three-part Cody-Waite) and the quadrant's two low
 * bits: odd quadrants swap the polynomials, and bit 1 (of k for sin, k + 1 for cos) flips the
 * sign. |x| beyond about 6.5e6 is clamped (the result is finite and meaningless there). */
static inline void EXPR_SFX(sincos)(V x, V *s, V *c)
{
    V y = V_MUL(x, V_K(0.636619772367581343f));
    y = V_MIN(V_MAX(y, V_K(-4194304.0f)), V_K(4194304.0f));
    const V k = EXPR_SFX(round_small)(y);
    V r = V_SUB(x, V_MUL(k, V_K(1.5703125f)));
    r = V_SUB(r, V_MUL(k, V_K(4.837512969970703125e-4f)));
    r = V_SUB(r, V_MUL(k, V_K(7.54978995489188216e-8f)));
    const I q = I_FROM_V(k);
    V z = V_MUL(r, r);
    V sp = V_MUL(z, V_K(-1.9515295891e-4f));
    sp = V_MUL(z, V_ADD(sp, V_K(8.3321608736e-3f)));
    sp = V_ADD(sp, V_K(-1.6666654611e-1f));
    sp = V_ADD(r, V_MUL(V_MUL(r, z), sp));
    V cp = V_MUL(z, V_K(2.443315711809948e-5f));
    cp = V_MUL(z, V_ADD(cp, V_K(-1.388731625493765e-3f)));
    cp = V_ADD(cp, V_K(4.166664568298827e-2f));
    cp = V_SUB(V_ADD(V_MUL(V_MUL(z, z), cp), V_K(1.0f)), V_MUL(V_K(0.5f), z));
    const M odd = M_IPOS(I_AND(q, I_K(1)));
    const I sin_sign = I_SHL(I_AND(q, I_K(2)), 30);
    const I cos_sign = I_SHL(I_AND(I_ADD(q, I_K(1)), I_K(2)), 30);
    *s = V_FROM_BITS(I_XOR(V_BITS(V_SEL(odd, cp, sp)), sin_sign));
    *c = V_FROM_BITS(I_XOR(V_BITS(V_SEL(odd, sp, cp)), cos_sign));
}

/* sin(r) on [-pi/2, pi/2]: one odd polynomial (r + r^3 p(r^2), SLEEF's single-precision
 * minimax coefficients). */
static inline V EXPR_SFX(sin_poly)(V r)
{
    const V s = V_MUL(r, r), s2 = V_MUL(s, s);
    /* Estrin's scheme: two halves at once, for a shorter dependency chain than Horner's. */
    const V hi =
        V_ADD(V_MUL(V_K(2.6083159809786593541503e-06f), s), V_K(-1.981069071916863322258e-4f));
    const V lo =
        V_ADD(V_MUL(V_K(8.33307858556509017944336e-3f), s), V_K(-0.166666597127914428710938f));
    const V u = V_ADD(V_MUL(hi, s2), lo);
    return V_ADD(V_MUL(V_MUL(r, s), u), r);
}

/* sin and cos on their own (tan keeps sincos): one reduction by pi, or for cos by an odd
 * multiple of pi/2, and one polynomial, where sincos evaluates two and blends. Half the work of a
 * lane, in every width the same operations, so the bits still agree. The multiple's parity gives
 * the sign: sin(x) = (-1)^k sin(x - k pi); cos(x) = (-1)^(k+1) sin(x - (k + 1/2) pi). pi is
 * taken in two parts, the first short enough that its products with k stay exact for the
 * documented range.
 *
 * k is rounded by adding and taking away 1.5 * 2^23: for |x / pi| <= 2^22 the sum t is exactly
 * 1.5 * 2^23 + k (k to nearest, ties to even, as any rounding instruction would give), and k's
 * parity is t's lowest bit, so neither a clamp nor a float-to-integer conversion is needed: two
 * additions where sincos spends a clamp, a rounding and a conversion. Beyond that range the same
 * IEEE operations still run in every width (the bits agree), on a k that is no longer the
 * nearest multiple: the result is meaningless there, and past about 1e8 not even finite. */
static inline V EXPR_SFX(sin)(V x)
{
    const V t = V_ADD(V_MUL(x, V_K(0.318309886183790671538f)), V_K(12582912.0f));
    const V k = V_SUB(t, V_K(12582912.0f));
    V r = V_SUB(x, V_MUL(k, V_K(3.140625f)));
    r = V_SUB(r, V_MUL(k, V_K(9.676535846665502e-4f)));
    const I sign = I_SHL(V_BITS(t), 31);
    return V_FROM_BITS(I_XOR(V_BITS(EXPR_SFX(sin_poly)(r)), sign));
}

static inline V EXPR_SFX(cos)(V x)
{
    const V y = V_SUB(V_MUL(x, V_K(0.318309886183790671538f)), V_K(0.5f));
    const V t = V_ADD(y, V_K(12582912.0f));
    const V h = V_ADD(V_SUB(t, V_K(12582912.0f)), V_K(0.5f)); /* k + 1/2, exact */
    V r = V_SUB(x, V_MUL(h, V_K(3.140625f)));
    r = V_SUB(r, V_MUL(h, V_K(9.676535846665502e-4f)));
    const I sign = I_SHL(I_XOR(V_BITS(t), I_K(1)), 31);
    return V_FROM_BITS(I_XOR(V_BITS(EXPR_SFX(sin_poly)(r)), sign));
}

static inline V EXPR_SFX(tan)(V x)
{
    V s, c;
    EXPR_SFX(sincos)(x, &s, &c);
    return V_DIV(s, c);
}

/* e^x = 2^k e^r with |r| <= ln2/2; 2^k is built from its exponent bits as 2^(k-1) * 2 so that
 * k = 128 (just under the overflow) still fits. */
static inline V EXPR_SFX(exp)(V x)
{
    V xc = V_MIN(V_MAX(x, V_K(-87.0f)), V_K(88.7228393f));
    V k = EXPR_SFX(round_small)(V_MUL(xc, V_K(1.44269504088896341f)));
    V r = V_SUB(xc, V_MUL(k, V_K(0.693359375f)));
    r = V_SUB(r, V_MUL(k, V_K(-2.12194440e-4f)));
    V p = V_ADD(V_MUL(V_K(1.9875691500e-4f), r), V_K(1.3981999507e-3f));
    p = V_ADD(V_MUL(p, r), V_K(8.3334519073e-3f));
    p = V_ADD(V_MUL(p, r), V_K(4.1665795894e-2f));
    p = V_ADD(V_MUL(p, r), V_K(1.6666665459e-1f));
    p = V_ADD(V_MUL(p, r), V_K(5.0000001201e-1f));
    p = V_ADD(V_ADD(V_MUL(p, V_MUL(r, r)), r), V_K(1.0f));
    I e = I_ADD(I_FROM_V(k), I_K(126));
    V scale = V_FROM_BITS(I_SHL(e, 23));
    V y = V_MUL(V_MUL(p, scale), V_K(2.0f));
    y = V_SEL(M_LT(x, V_K(-87.0f)), V_K(0.0f), y);
    y = V_SEL(M_GT(x, V_K(88.7228393f)), V_FROM_BITS(I_K(0x7f800000)), y);
    return V_SEL(M_NE(x, x), x, y);
}

/* log x = e ln2 + log m, m in [sqrt(1/2), sqrt(2)); subnormals are scaled up first. */
static inline V EXPR_SFX(log)(V x)
{
    M sub = M_LT(x, V_K(1.17549435e-38f));
    V xs = V_SEL(sub, V_MUL(x, V_K(8388608.0f)), x);
    I bits = V_BITS(xs);
    V e = V_FROM_I(I_SUB(I_AND(I_SHR(bits, 23), I_K(0xff)), I_K(126)));
    e = V_SEL(sub, V_SUB(e, V_K(23.0f)), e);
    V m = V_FROM_BITS(I_OR(I_AND(bits, I_K(0x007fffff)), I_K(0x3f000000)));
    M lo = M_LT(m, V_K(0.707106781186547524f));
    e = V_SEL(lo, V_SUB(e, V_K(1.0f)), e);
    m = V_SEL(lo, V_SUB(V_ADD(m, m), V_K(1.0f)), V_SUB(m, V_K(1.0f)));
    V z = V_MUL(m, m);
    V y = V_SUB(V_MUL(V_K(7.0376836292e-2f), m), V_K(1.1514610310e-1f));
    y = V_ADD(V_MUL(y, m), V_K(1.1676998740e-1f));
    y = V_SUB(V_MUL(y, m), V_K(1.2420140846e-1f));
    y = V_ADD(V_MUL(y, m), V_K(1.4249322787e-1f));
    y = V_SUB(V_MUL(y, m), V_K(1.6668057665e-1f));
    y = V_ADD(V_MUL(y, m), V_K(2.0000714765e-1f));
    y = V_SUB(V_MUL(y, m), V_K(2.4999993993e-1f));
    y = V_ADD(V_MUL(y, m), V_K(3.3333331174e-1f));
    y = V_MUL(V_MUL(y, m), z);
    y = V_ADD(y, V_MUL(e, V_K(-2.12194440e-4f)));
    y = V_SUB(y, V_MUL(V_K(0.5f), z));
    V r = V_ADD(V_ADD(m, y), V_MUL(e, V_K(0.693359375f)));
    V inf = V_FROM_BITS(I_K(0x7f800000));
    r = V_SEL(M_EQ(x, inf), inf, r);
    r = V_SEL(M_EQ(x, V_K(0.0f)), V_NEG(inf), r);
    r = V_SEL(M_LT(x, V_K(0.0f)), V_FROM_BITS(I_K(0x7fc00000)), r);
    return V_SEL(M_NE(x, x), x, r);
}

/* a^b for any b: exp(b log a), with b = 0 giving 1 (0^0 too). */
static inline V EXPR_SFX(pow)(V a, V b)
{
    V r = EXPR_SFX(exp)(V_MUL(b, EXPR_SFX(log)(a)));
    return V_SEL(M_EQ(b, V_K(0.0f)), V_K(1.0f), r);
}

/* a^n for a constant integer n: binary powering, the same products in the same order for every
 * width (x^2 is exactly x*x). */
static inline V EXPR_SFX(powi)(V x, int32_t n)
{
    uint32_t m = n < 0 ? (uint32_t)-n : (uint32_t)n;
    V base = x, r = V_K(1.0f);
    int have = 0;
    while (m) {
        if (m & 1u) {
            r = have ? V_MUL(r, base) : base;
            have = 1;
        }
        m >>= 1;
        if (m)
            base = V_MUL(base, base);
    }
    return n < 0 ? V_DIV(V_K(1.0f), r) : r;
}

/* atan2 through atan of min/max in [0, 1], folded at tan(pi/8), then the octant. */
static inline V EXPR_SFX(atan2)(V y, V x)
{
    V ax = V_ABS(x), ay = V_ABS(y);
    V mn = V_MIN(ax, ay), mx = V_MAX(ax, ay);
    M zero = M_EQ(mx, V_K(0.0f));
    V a = V_DIV(mn, V_SEL(zero, V_K(1.0f), mx));
    M big = M_GT(a, V_K(0.414213562373095f));
    V a2 = V_SEL(big, V_DIV(V_SUB(a, V_K(1.0f)), V_ADD(a, V_K(1.0f))), a);
    V off = V_SEL(big, V_K(0.785398163397448f), V_K(0.0f));
    V z = V_MUL(a2, a2);
    V p = V_SUB(V_MUL(V_K(8.05374449538e-2f), z), V_K(1.38776856032e-1f));
    p = V_ADD(V_MUL(p, z), V_K(1.99777106478e-1f));
    p = V_SUB(V_MUL(p, z), V_K(3.33329491539e-1f));
    p = V_ADD(V_MUL(V_MUL(p, z), a2), a2);
    V r = V_ADD(off, p);
    r = V_SEL(M_GT(ay, ax), V_SUB(V_K(1.57079632679490f), r), r);
    r = V_SEL(M_LT(x, V_K(0.0f)), V_SUB(V_K(3.14159265358979f), r), r);
    r = V_SEL(M_LT(y, V_K(0.0f)), V_NEG(r), r);
    return V_SEL(M_OR(M_NE(x, x), M_NE(y, y)), V_ADD(x, y), r);
}

/* A 32-bit integer hash (murmur3's finaliser over a golden-ratio product). */
static inline I EXPR_SFX(hash)(I h)
{
    h = I_MUL(h, I_K((int32_t)0x9e3779b1u));
    h = I_XOR(h, I_SHR(h, 16));
    h = I_MUL(h, I_K((int32_t)0x85ebca6bu));
    h = I_XOR(h, I_SHR(h, 13));
    h = I_MUL(h, I_K((int32_t)0xc2b2ae35u));
    return I_XOR(h, I_SHR(h, 16));
}

/* The top 24 bits of a hash as a float in [0, 1). */
static inline V EXPR_SFX(unit)(I h)
{
    return V_MUL(V_FROM_I(I_SHR(h, 8)), V_K(5.9604644775390625e-8f));
}

static inline V EXPR_SFX(rand)(V x, uint32_t seed_mix)
{
    return EXPR_SFX(unit)(EXPR_SFX(hash)(I_XOR(V_BITS(x), I_K((int32_t)seed_mix))));
}

/* Value noise: a hashed value in [-1, 1] at every integer, smoothstep between them. */
static inline V EXPR_SFX(noise)(V x, uint32_t seed_mix)
{
    V xc = V_MIN(V_MAX(x, V_K(-1073741824.0f)), V_K(1073741824.0f));
    V i = EXPR_SFX(floor)(xc);
    V f = V_SUB(xc, i);
    I ii = I_FROM_V(i);
    I s = I_K((int32_t)seed_mix);
    V h0 = EXPR_SFX(unit)(EXPR_SFX(hash)(I_XOR(ii, s)));
    V h1 = EXPR_SFX(unit)(EXPR_SFX(hash)(I_XOR(I_ADD(ii, I_K(1)), s)));
    V v0 = V_SUB(V_MUL(h0, V_K(2.0f)), V_K(1.0f));
    V v1 = V_SUB(V_MUL(h1, V_K(2.0f)), V_K(1.0f));
    V u = V_MUL(V_MUL(f, f), V_SUB(V_K(3.0f), V_MUL(V_K(2.0f), f)));
    V r = V_ADD(v0, V_MUL(V_SUB(v1, v0), u));
    return V_SEL(M_NE(x, x), x, r);
}

/* Floored modulo: the sign of b. */
static inline V EXPR_SFX(mod)(V a, V b) { return V_SUB(a, V_MUL(b, EXPR_SFX(floor)(V_DIV(a, b)))); }

static inline V EXPR_SFX(bool)(M m) { return V_SEL(m, V_K(1.0f), V_K(0.0f)); }

static inline V EXPR_SFX(clamp)(V x, V lo, V hi) { return V_MIN(V_MAX(x, lo), hi); }

static inline V EXPR_SFX(lerp)(V a, V b, V t) { return V_ADD(a, V_MUL(V_SUB(b, a), t)); }

static inline V EXPR_SFX(smoothstep)(V e0, V e1, V x)
{
    V u = EXPR_SFX(clamp)(V_DIV(V_SUB(x, e0), V_SUB(e1, e0)), V_K(0.0f), V_K(1.0f));
    return V_MUL(V_MUL(u, u), V_SUB(V_K(3.0f), V_MUL(V_K(2.0f), u)));
}
