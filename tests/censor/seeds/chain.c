#if A
a
#elif B
b
#elif V > 1 && defined(C)
c
#else
d
#endif
/* #ifdef NDA */
#ifdef NDA
secret
#ifndef B
x
#endif
#endif
