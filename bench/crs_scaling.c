/* spmv_crs_mv at 1 and 2 threads against a plain OpenMP loop (static rows, as the peers' ref-csr), interleaved
 * rounds, Gflop/s from the minimum and the median wall time. Public API only (spmv_crs_from_arrays, spmv_crs_set_threads,
 * spmv_crs_mv), so it builds against any version of the library, e.g. the commit the peers' RESULTS-2026-12-01 measured
 * (6e777af, the AVX-512 gather CRS kernel) next to this one (issue 14):
 *   cc -O3 -march=native -fopenmp -IDIR/include bench/crs_scaling.c -o crs_scaling -LDIR/build -Wl,-rpath,DIR/build -lspmv
 *   ./crs_scaling MATRIX.mtx.csrbin [ROUNDS]      (the peers' PEERS_BINCACHE=1 binary CSR: PCSRBIN1 layout) */
#define _POSIX_C_SOURCE 200809L
#include <spmv.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return (x>y)-(x<y);}
static double med(double*a,int n){double b[512];memcpy(b,a,sizeof(double)*n);qsort(b,n,sizeof*b,cmpd);return b[n/2];}
static double mn(double*a,int n){double m=a[0];for(int i=1;i<n;i++)if(a[i]<m)m=a[i];return m;}
int main(int argc,char**argv){
  if(argc<2){fprintf(stderr,"usage: %s MATRIX.csrbin [ROUNDS]\n",argv[0]);return 2;}
  FILE*f=fopen(argv[1],"rb"); char m[8]; int32_t nr,nc; int64_t nnz;
  if(!f||fread(m,1,8,f)!=8||memcmp(m,"PCSRBIN1",8)||fread(&nr,4,1,f)!=1||fread(&nc,4,1,f)!=1||fread(&nnz,8,1,f)!=1){fprintf(stderr,"%s: not a PCSRBIN1 file\n",argv[1]);return 1;}
  int32_t*rp32=malloc(4*(size_t)(nr+1)); int32_t*ci=malloc(4*(size_t)nnz); double*v=malloc(8*(size_t)nnz);
  if(fread(rp32,4,(size_t)nr+1,f)!=(size_t)nr+1||fread(ci,4,(size_t)nnz,f)!=(size_t)nnz||fread(v,8,(size_t)nnz,f)!=(size_t)nnz){fprintf(stderr,"%s: short file\n",argv[1]);return 1;}
  fclose(f);
  int rounds=argc>2?atoi(argv[2]):21; if(rounds<1)rounds=1; if(rounds>512)rounds=512;
  int64_t*rp=malloc(8*(size_t)(nr+1)); for(int i=0;i<=nr;i++)rp[i]=rp32[i];
  omp_set_num_threads(2);
  spmv_crs*A; if(spmv_crs_from_arrays(nr,nc,rp,ci,v,&A)){fprintf(stderr,"%s\n",spmv_last_error());return 1;}
  double*x,*y; spmv_vec_alloc(nc,&x); spmv_vec_alloc(nr,&y); for(int i=0;i<nc;i++)x[i]=1+(i%7)/7.0;
  const int64_t*arp=A->rowptr; const int32_t*acol=A->col; const double*aval=A->val;
  double t[2][2][512];
  for(int r=0;r<rounds;r++) for(int T=1;T<=2;T++){
     spmv_crs_set_threads(A,T); omp_set_num_threads(T);
     double a=now(); spmv_crs_mv(A,1.0,x,0.0,y); t[0][T-1][r]=now()-a;
     a=now();
#pragma omp parallel for schedule(static) num_threads(T)
     for(int32_t i=0;i<nr;i++){double s=0;for(int64_t k=arp[i];k<arp[i+1];k++)s+=aval[k]*x[acol[k]];y[i]=s;}
     t[1][T-1][r]=now()-a;
  }
  double g=2e-9*nnz;
  printf("%s, %s (libspmv %s), %d interleaved rounds: Gflop/s from the min / median wall time\n",argv[1],spmv_crs_kernel_name(A),spmv_version(),rounds);
  for(int c=0;c<2;c++){ printf("  %-26s",c?"plain loop (static rows)":"spmv_crs_mv");
    for(int T=1;T<=2;T++) printf("  %dt %.3f / %.3f",T,g/mn(t[c][T-1],rounds),g/med(t[c][T-1],rounds));
    printf("  2t/1t %.2f (min) %.2f (median)\n", mn(t[c][0],rounds)/mn(t[c][1],rounds), med(t[c][0],rounds)/med(t[c][1],rounds)); }
  return 0;
}
