/* Recorded choices held in memory, imported only on request (FFTW's "wisdom"; issue 17).
 *
 * spmv_tune_auto_params (C = 0 / sigma = 0), the handle's optimize step and spmv::mpi's AUTO format consult only
 * what was imported here, so the same call gives the same matrix on every account unless the caller asked for the
 * recorded choices (spmv_wisdom_import). The records are kept in import order; a lookup takes the last matching
 * one (a later import overrides an earlier one), preferring one measured in the same vector order. */
#include "internal.h"
#include "tune.h"

#include <stdio.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static spmv_tune_record *wis;
static int32_t nwis;

spmv_status spmv_wisdom_import(const char *path, int32_t *nrecords)
{
    static const char fn[] = "spmv_wisdom_import";
    if (nrecords) *nrecords = 0;
    char def[4096];
    if (!path) {
        if (spmv_tune_db_path(def, sizeof def)) {
            /* SPMV_TUNE_DB=off, or no HOME: nothing to import, and that is not an error */
            spmv__clear_error();
            return SPMV_OK;
        }
        path = def;
    }
    spmv_tune_record *recs = NULL;
    int32_t n = 0;
    spmv_status st = spmv_tune_db_read(path, &recs, &n);
    if (st) return st;
    if (n == 0 && path != def) {
        /* an explicitly named file that is missing is an error; an empty one is not */
        FILE *f = fopen(path, "r");
        if (!f) return spmv__error(SPMV_ERR_IO, "%s: cannot open '%s'", fn, path);
        fclose(f);
    }
    if (n > 0) {
        pthread_mutex_lock(&lock);
        spmv_tune_record *grown = realloc(wis, (size_t)(nwis + n) * sizeof *wis);
        if (!grown) {
            pthread_mutex_unlock(&lock);
            spmv_tune_db_free(recs);
            return spmv__error(SPMV_ERR_NOMEM, "%s: %d records", fn, nwis + n);
        }
        wis = grown;
        memcpy(wis + nwis, recs, (size_t)n * sizeof *wis);
        nwis += n;
        pthread_mutex_unlock(&lock);
    }
    spmv_tune_db_free(recs);
    if (nrecords) *nrecords = n;
    return SPMV_OK;
}

void spmv_wisdom_forget(void)
{
    pthread_mutex_lock(&lock);
    free(wis);
    wis = NULL;
    nwis = 0;
    pthread_mutex_unlock(&lock);
}

int32_t spmv_wisdom_count(void)
{
    pthread_mutex_lock(&lock);
    int32_t n = nwis;
    pthread_mutex_unlock(&lock);
    return n;
}

spmv_status spmv_wisdom_find(const spmv_tune_host *h, const spmv_tune_fingerprint *f, int permuted,
                             spmv_tune_record *r, int *found)
{
    static const char fn[] = "spmv_wisdom_find";
    if (!h || !f || !r || !found)
        return spmv__error(SPMV_ERR_ARG, "%s: argument %s is NULL", fn, !h ? "h" : !f ? "f" : !r ? "r" : "found");
    *found = 0;
    pthread_mutex_lock(&lock);
    const int32_t best = spmv__tune_record_pick(wis, nwis, h, f, permuted);
    if (best >= 0) {
        *r = wis[best];
        *found = 1;
    }
    pthread_mutex_unlock(&lock);
    return SPMV_OK;
}
