/* Prints every kernel descriptor of every family built into the library, one line each:
 *   FAMILY NAME FORMAT C WIDTH MVE XACCESS RUNS NT
 * (width 0: the family's run-time vector length). Used by src/kernels/avx512/check_inner_loop.sh and
 * src/kernels/avx2/check_inner_loop.sh to hold each declared shape against the machine code of its kernel. */
#include "kernel.h"

#include <stdio.h>

int main(void)
{
    static const char *xname[] = {"auto", "scalar", "gather", "emul"};
    for (int a = 0; a < spmv__family_count(); a++) {
        const spmv_family *f = spmv__family((spmv_arch)a);
        if (!f) continue;
        for (const spmv_kernel *const *p = f->kernels; p && *p; p++) {
            const spmv_kernel *k = *p;
            printf("%s %s %s %d %d %d %s %d %d\n", f->name, k->name, k->crs ? "crs" : "sell", k->shape.C,
                   k->shape.width, k->shape.mve, xname[k->shape.x & 3], k->shape.runs, k->nt);
        }
    }
    return 0;
}
