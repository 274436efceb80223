/* gemm_microbench.c: GFLOP/s of runtime-c/aotc_host_f32.h's aotc_gemm_f32 for one product
 * shape (m output channels, k terms, n pixels), to compare compilers and kernel versions:
 *
 *   cc -O3 -march=native -Iruntime-c bench/host_float/gemm_microbench.c -o gemm && ./gemm 64 144 110
 *
 * n >= 32 takes the 4-channel block (pixels in vectors), n < 32 the 16-channel one. Runs the
 * product for about half a second and prints GFLOP/s and the time of one product.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "aotc_host_f32.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc, char** argv) {
  if (argc != 4) return 2;
  int m=atoi(argv[1]),k=atoi(argv[2]); long n=atol(argv[3]);
  long psz=aotc_f32_packed_size(m,k,n);
  float*packed=calloc(psz,4); packed[0]=-1e30f; packed[1]=1e30f;
  for(long i=2;i<psz;i++) packed[i]=(i%7)*0.01f;
  float*x=malloc(4*k*n),*o=malloc(4*m*n); for(long i=0;i<k*n;i++)x[i]=(i%5)*0.1f;
  int reps=0; double t0=now(),t;
  do{ aotc_gemm_f32(packed,m,k,n,x,n,n,o,n); reps++; t=now()-t0;}while(t<0.5);
  printf("m=%d k=%d n=%ld: %.2f GFLOP/s  (%.3f ms)\n",m,k,n,2.0*m*k*n*reps/t/1e9,t/reps*1e3);
  return o[5]>1e30;
}
