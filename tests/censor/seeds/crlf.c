s = "/*";
#if defined(A) \
 || X
x
#endif
