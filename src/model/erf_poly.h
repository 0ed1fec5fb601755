/* erf_poly.h: the erf table of the SIMD GELU, for any kernel file to include (arm/kernels_neon.c;
 * x86/kernels_avx2.c and kernels_avx512.c still hold their own copies of the same numbers).
 * erf on [0, 4) as eight degree-7 polynomials in t = |x| - centre, one per interval of width 0.5
 * (centre = 0.25 + 0.5 i), from Chebyshev interpolation of erf at 8 nodes per interval, computed in
 * 40-digit arithmetic; the interpolation error is below 1.2e-9, so float rounding dominates.
 * Row j holds the coefficient of t^j for the eight intervals, so one table lookup picks every
 * lane's coefficient. Past 4, erf rounds to 1 in float. */
#ifndef HX_ERF_POLY_H
#define HX_ERF_POLY_H

static const float hx_erf_poly[8][8] = {
    {0.276326389f, 0.7111556334f, 0.9229001289f, 0.9866716711f, 0.9985372833f, 0.9998993781f, 0.9999956972f, 0.9999998863f},
    {1.060014129f, 0.6429310697f, 0.2365211223f, 0.05277499582f, 0.007142319065f, 0.0005862772558f, 2.918902234e-5f, 8.814314515e-7f},
    {-0.2650029543f, -0.4821981601f, -0.2956517449f, -0.0923562016f, -0.0160701569f, -0.00161226745f, -9.486933214e-5f, -3.306069537e-6f},
    {-0.3091706313f, 0.02678855698f, 0.1675358462f, 0.09015733924f, 0.02172453164f, 0.002760384241f, 0.0001958112717f, 7.969994704e-6f},
    {0.1269345213f, 0.1506756327f, -0.006132017046f, -0.0481055344f, -0.01908825667f, -0.003257709192f, -0.000286169474f, -1.378546888e-5f},
    {0.08004061905f, -0.05322369228f, -0.04718514627f, 0.006619999124f, 0.01065944706f, 0.002756164766f, 0.0003136722909f, 1.834072319e-5f},
    {-0.03934035577f, -0.02658287067f, 0.02059754525f, 0.009049599632f, -0.00277956135f, -0.001667863961f, -0.000273757964f, -2.069178432e-5f},
    {-0.01584315921f, 0.01794584586f, 0.003732251079f, -0.005947051133f, -0.0007159299336f, 0.0006369700027f, 0.0001731994452f, 1.70471955e-5f},
};

#endif
