#ifndef RV32_MATH_H
#define RV32_MATH_H
/* stubs: int8 models should not need float math */
float expf(float); float logf(float); float tanhf(float); float sqrtf(float); float floorf(float);
float roundf(float); float fabsf(float); float ceilf(float); float powf(float, float);
double exp(double); double log(double); double sqrt(double); double floor(double); double round(double); double fabs(double);
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#endif
